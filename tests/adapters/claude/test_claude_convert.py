"""Record mapping of dialect claude-code/1: one case per rule and per field report it answers.

Lines are built here as the smallest file of each shape (field-reports.md);
expectations follow seed 000 and origin-digest §5.1.
"""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pytest

from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_adapters_claude.convert import mcp_split
from asz_core import FLAGS, VOCABULARY, RawJSON, Source, compact
from asz_core.sessiondata import decode_record, encode_record

A = ClaudeCodeLocal()


def src(kind: str = "transcript", **kw) -> Source:
    return Source(session="00000000-0000-4000-8000-000000000000", kind=kind, path=Path("/nowhere"), src="p/x.jsonl", dialect="claude-code/1", **kw)


def conv(obj_or_line, kind: str = "transcript", **kw):
    line = obj_or_line if isinstance(obj_or_line, bytes) else json.dumps(obj_or_line, separators=(",", ":"), ensure_ascii=False).encode()
    rec = A.convert_line(src(kind, **kw), line, 7, 1234)
    assert (rec.ord, rec.off, rec.bytes, rec.sha) == (7, 1234, len(line), hashlib.sha256(line).hexdigest()[:12])
    back = decode_record(encode_record(rec))  # every record encodes and decodes
    assert len(back.parts) == len(rec.parts)
    return rec


def user(content, **extra) -> dict:
    return {"type": "user", "uuid": "u1", "parentUuid": "p1", "timestamp": "2026-01-01T00:00:00Z", "message": {"role": "user", "content": content}, **extra}


def assistant(blocks, **msg) -> dict:
    m = {"id": "msg_1", "role": "assistant", "model": "claude-x", "stop_reason": None, "content": blocks, **msg}
    return {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "promptId": "p", "timestamp": "2026-01-01T00:00:01Z", "message": m}


# --------------------------------------------------------------------------- declarations


def test_glossary_covers_the_vocabulary() -> None:
    terms = A.glossary("claude-code/1")
    assert [t.unified for t in terms] == list(VOCABULARY)
    for t in terms:
        assert t.note, t.unified
        if t.native:
            assert t.where, f"{t.unified}: a native name needs a where"
        else:
            assert not t.where, f"{t.unified}: a derived term has no where"
    named = {t.unified: t.native for t in terms if t.native}
    assert named["id"] == "uuid" and named["call"] == "message.id" and named["run"] == "promptId"
    assert named["epoch.boundary"] == "system/compact_boundary" and named["redacted"] == "redacted_thinking"
    with pytest.raises(KeyError):
        A.glossary("langsmith/1")


def test_flag_map_names_known_flags_with_rules() -> None:
    rules = A.flag_map("claude-code/1")
    assert [r.flag for r in rules] == [f for f in FLAGS if f != "auxiliary"]
    assert all(r.rule for r in rules)


def test_adapter_identity_and_roots(tmp_path: Path) -> None:
    assert A.identity == "claude-code-local/0.9.0" and A.dialects == ("claude-code/1",)
    assert set(A.kinds) == {"transcript", "agent_meta", "journal", "workflow_manifest", "workflow_script"}
    assert A.default_source_root({"CLAUDE_CONFIG_DIR": "/c"}) == Path("/c/projects")
    assert A.default_source_root({"HOME": "/h", "XDG_CONFIG_HOME": str(tmp_path)}) == Path("/h/.claude/projects")
    (tmp_path / "claude").mkdir()
    assert A.default_source_root({"HOME": "/h", "XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "claude" / "projects"
    assert A.default_source_root({"HOME": "/h"}) == Path("/h/.claude/projects")


def test_registered_through_the_entry_point() -> None:
    from asz_adapters_claude import plugin

    assert plugin.asz_register_adapters() == [plugin.ClaudeCodeLocal]


# --------------------------------------------------------------------------- content (field reports 28-31)


def test_string_and_list_content_both_give_text() -> None:  # field report 29
    a = conv(user("hello"))
    b = conv(user([{"type": "text", "text": "hello"}]))
    assert [(p.k, p.text) for p in a.parts] == [(p.k, p.text) for p in b.parts] == [("text", "hello")]


def test_tool_result_list_content_joins_text() -> None:  # field report 28
    rec = conv(user([{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]}]))
    [p] = rec.parts
    assert (p.k, p.of, p.text, p.failed, p.data) == ("result", "toolu_1", "one\ntwo", None, None)


def test_tool_result_non_text_content_lands_as_data() -> None:
    line = json.dumps(user([{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "tool_reference", "tool_name": "X"}]}])).encode()
    [p] = conv(line).parts
    assert p.data == RawJSON(b'[{"type":"tool_reference","tool_name":"X"}]')


def test_image_inside_a_tool_result_is_a_media_part() -> None:  # field report 30
    png = base64.b64encode(b"\x89PNG fake").decode()
    block = {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "shot"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": png}}]}
    rec = conv(user([block]))
    assert [p.k for p in rec.parts] == ["result", "media"]
    assert rec.parts[0].text == "shot" and rec.parts[0].data is None
    m = rec.parts[1]
    assert (m.media, m.data, m.bytes, m.state) == ("image/png", png, len(png), "available")


def test_failed_only_where_is_error_is_present() -> None:  # field report 31
    def result(**kw):
        return conv(user([{"type": "tool_result", "tool_use_id": "t", "content": "File does not exist.", **kw}])).parts[0]

    assert result(is_error=True).failed is True
    assert result(is_error=False).failed is False
    absent = result()
    assert absent.failed is None
    assert b'"failed"' not in encode_record(conv(user([{"type": "tool_result", "tool_use_id": "t", "content": "x"}])))


def test_tool_use_result_object_is_the_result_data_beside_the_text() -> None:
    line = (
        b'{"type":"user","uuid":"u","message":{"role":"user","content":[{"tool_use_id":"t","type":"tool_result","content":"ok"}]},'
        b'"toolUseResult":{"stdout":"ok",  "stderr":"","agentId":"a0000000000000001","status":"completed","runId":"wf_r"}}'
    )
    rec = conv(line)
    [p] = rec.parts
    assert p.text == "ok"
    assert p.data == RawJSON(compact(b'{"stdout":"ok",  "stderr":"","agentId":"a0000000000000001","status":"completed","runId":"wf_r"}'))
    assert (rec.child, rec.batch, rec.flags) == ("a0000000000000001", "wf_r", ["child_result"])


def test_launch_ack_and_a_bare_string_tool_use_result() -> None:
    rec = conv(user([{"type": "tool_result", "tool_use_id": "t", "content": "launched"}], toolUseResult={"status": "async_launched", "agentId": "a1"}))
    assert rec.flags == ["launch_ack"] and rec.child == "a1"
    rec = conv(user([{"type": "tool_result", "tool_use_id": "t", "content": "Error"}], toolUseResult="Error: x"))
    assert [p.k for p in rec.parts] == ["result"] and rec.parts[0].data is None


def test_calls_and_mcp_split() -> None:
    rec = conv(assistant([{"type": "tool_use", "id": "toolu_9", "name": "mcp__claude_ai_Docs__search", "input": {"q": "x"}}], stop_reason="tool_use"))
    [p] = rec.parts
    assert (p.k, p.id, p.name, p.server, p.server_tool) == ("call", "toolu_9", "mcp__claude_ai_Docs__search", "claude_ai_Docs", "search")
    assert p.data == RawJSON(b'{"q":"x"}')
    assert rec.flags == ["finished"]
    assert mcp_split("mcp__srv__tool") == ("srv", "tool")
    for whole in ("mcp__foo___bar", "mcp__a__b__c", "mcp__srv__", "mcp____tool", "Bash", "mcp__nosplit", "mcp__a____b"):
        assert mcp_split(whole) is None, whole
    srv = conv(assistant([{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}}])).parts[0]
    assert (srv.k, srv.id, srv.server) == ("call", "srvtoolu_1", "")


def test_thinking_signature_is_dropped_and_empty_text_unavailable() -> None:
    rec = conv(assistant([{"type": "thinking", "thinking": "", "signature": "S" * 588}, {"type": "thinking", "thinking": "hmm", "signature": ""}, {"type": "redacted_thinking", "data": "ENC"}]))
    assert [(p.k, p.text, p.state) for p in rec.parts] == [("reasoning", "", "unavailable"), ("reasoning", "hmm", "available"), ("reasoning", "", "redacted")]
    assert [(d.what, d.bytes, d.why) for d in rec.dropped] == [
        ("reasoning signature", 588, "a provider verifies it; a reader cannot read it"),
        ("redacted reasoning", 3, "the provider encrypted it; a reader cannot read it"),
    ]


def test_unknown_block_type_keeps_its_bytes_in_place() -> None:
    line = b'{"type":"assistant","uuid":"a","message":{"id":"m","content":[{"type":"text","text":"a"},{"type":"fallback", "x":1},{"type":"text","text":"b"}]}}'
    rec = conv(line)
    assert [p.k for p in rec.parts] == ["text", "unknown", "text"]
    u = rec.parts[1]
    assert u.text == 'block type "fallback" is not one this dialect describes'
    assert u.raw() == b'{"type":"fallback", "x":1}' and u.bytes == len(u.raw())


def test_usage_model_and_synthetic() -> None:
    rec = conv(assistant([{"type": "text", "text": "x"}], stop_reason="end_turn", usage={"input_tokens": 2, "output_tokens": 0, "cache_read_input_tokens": 5, "cache_creation_input_tokens": 0}))
    assert (rec.usage.in_, rec.usage.out, rec.usage.cache_read, rec.usage.cache_write) == (2, 0, 5, 0)
    assert b'"usage":{"in":2,"cache_read":5}' in encode_record(rec)
    assert (rec.id, rec.parent, rec.call, rec.run, rec.from_, rec.model) == ("a1", "u1", "msg_1", "p", "agent", "claude-x")
    syn = conv(assistant([{"type": "text", "text": "API Error"}], model="<synthetic>", usage={"input_tokens": 0, "output_tokens": 0}))
    assert syn.flags == ["synthetic"] and syn.usage is None


def test_usage_keeps_the_1_hour_part_of_the_cache_writes() -> None:
    """``cache_write`` stays every write (as the original lands it); ``cache_write_1h`` is the 1-hour part, a usage field
    seed 000's readers ignore; a zero one, or none in the source, is left out."""
    split = {"input_tokens": 3, "output_tokens": 211, "cache_read_input_tokens": 17842, "cache_creation_input_tokens": 8100,
             "cache_creation": {"ephemeral_5m_input_tokens": 48, "ephemeral_1h_input_tokens": 8052}, "service_tier": "standard"}
    rec = conv(assistant([{"type": "text", "text": "x"}], stop_reason="end_turn", usage=split))
    assert (rec.usage.cache_write, rec.usage.cache_write_1h) == (8100, 8052)
    assert b'"usage":{"in":3,"out":211,"cache_read":17842,"cache_write":8100,"cache_write_1h":8052}' in encode_record(rec)
    for cc in ({"ephemeral_5m_input_tokens": 8100, "ephemeral_1h_input_tokens": 0}, None, "junk", {"ephemeral_1h_input_tokens": -1}):
        u = {**split, "cache_creation": cc}
        rec = conv(assistant([{"type": "text", "text": "x"}], stop_reason="end_turn", usage=u))
        assert rec.usage.cache_write_1h == 0 and b"cache_write_1h" not in encode_record(rec), cc


# --------------------------------------------------------------------------- triggers and flags


def test_triggers() -> None:
    assert conv(user("hi", origin={"kind": "human"})).trigger == "external"
    assert conv(user("hi", origin={"kind": "task-notification"})).trigger == "notification"
    assert conv(user("hi", origin={"kind": "channel"})).trigger == "unknown"
    sdk = conv(user("hi", promptSource="sdk"))
    assert (sdk.trigger, sdk.flags) == ("external", ["external_input"])
    meta = conv(user("hi", promptSource="sdk", isMeta=True))
    assert (meta.trigger, meta.flags) == ("", ["injected"])
    # a transcript that writes no origin (Claude Code 1.x to 2.1.114 in the corpus): seed 003's rule
    typed = conv(user("hi"))
    assert (typed.trigger, typed.flags) == ("external", ["external_input"])
    texts = conv(user([{"type": "text", "text": "hi"}]))
    assert (texts.trigger, texts.flags) == ("external", ["external_input"])
    note = conv(user("<task-notification>\n<task-id>a0123456789abcdef</task-id>\n</task-notification>"))
    assert (note.trigger, note.flags) == ("notification", [])
    stdout = conv(user("<local-command-stdout>ok</local-command-stdout>"))
    assert (stdout.trigger, stdout.flags) == ("", [])
    # a bash-mode command's output, the record after its <bash-input> (the corpus's 326189cf: stdout, then stderr)
    bash_out = conv(user("<bash-stdout>Found 2 diagnostics\n</bash-stdout><bash-stderr>WARN ty</bash-stderr>"))
    assert (bash_out.trigger, bash_out.flags) == ("", [])
    bash_err = conv(user("<bash-stderr>no such file</bash-stderr>"))
    assert (bash_err.trigger, bash_err.flags) == ("", [])
    bash_in = conv(user("<bash-input>uv run ty check</bash-input>"))
    assert (bash_in.trigger, bash_in.flags) == ("external", ["external_input"])
    child_prompt = conv(user("check the tests", isSidechain=True))
    assert (child_prompt.trigger, child_prompt.flags) == ("", [])
    result = conv(user([{"type": "tool_result", "tool_use_id": "t", "content": "x"}]))
    assert (result.trigger, result.flags) == ("", [])
    att = conv({"type": "attachment", "uuid": "x", "attachment": {"type": "queued_command", "commandMode": "prompt", "prompt": "do it", "origin": {"kind": "human"}}})
    assert (att.trigger, att.flags, att.parts[0].text, att.from_) == ("external", ["external_input"], "do it", "runtime")


def test_task_notification_links() -> None:
    text = "<task-notification>\n<task-id>b123</task-id><task-id>a0123456789abcdef</task-id>\n<tool-use-id>toolu_7</tool-use-id>\n<status>completed</status>\n</task-notification>"
    rec = conv(user(text, origin={"kind": "task-notification"}))
    assert (rec.tool, rec.child, rec.trigger) == ("toolu_7", "a0123456789abcdef", "notification")


def test_system_records_flags_and_whole_data() -> None:
    for subtype, flag in (("compact_boundary", "context_reset"), ("api_error", "error"), ("turn_duration", "turn_duration"), ("local_command", "command"), ("away_summary", "notice"), (None, "notice")):
        obj = {"type": "system", "uuid": "s", "content": "c", "logicalParentUuid": "L"}
        if subtype:
            obj["subtype"] = subtype
        rec = conv(obj)
        assert rec.flags == [flag] and rec.from_ == "runtime" and rec.continues == "L"
        assert [p.k for p in rec.parts] == ["data"]


def test_compact_summary_is_a_reset_summary_not_user_speech() -> None:  # field report 35
    rec = conv(user("This session is being continued from a previous conversation…", isCompactSummary=True, origin={"kind": "human"}))
    assert rec.flags == ["reset_summary"]
    assert rec.parts[0].k == "text"


def test_attachments_injected_text_or_data_and_withholdable() -> None:
    text = conv({"type": "attachment", "uuid": "x", "attachment": {"type": "file", "content": "file body"}})
    assert (text.flags, text.parts[0].k, text.parts[0].text) == (["injected"], "text", "file body")
    line = b'{"type":"attachment","uuid":"x","attachment":{"type":"hook_success","content":"","stdout":"ctx"}}'
    data = conv(line)
    assert data.parts[0].data == RawJSON(b'{"type":"hook_success","content":"","stdout":"ctx"}')
    snap = conv({"type": "attachment", "attachment": {"type": "prompt_snapshot", "system": "S", "tools": [{"name": "Bash"}]}})
    assert snap.flags == ["injected", "system_prompt", "tool_schemas"]
    assert conv({"type": "attachment", "attachment": {"type": "prompt_snapshot", "system": "S", "tools": []}}).flags == ["injected", "system_prompt"]
    deferred = conv({"type": "attachment", "attachment": {"type": "deferred_tools_record", "toolInputCopies": [1], "tools": [{"n": 1}]}})
    assert deferred.flags == ["injected", "tool_schemas"]
    assert conv({"type": "attachment", "attachment": {"type": "deferred_tools_record", "toolInputCopies": [1]}}).flags == ["injected"]
    cut = conv(b'{"type":"attachment","attachment":{"type":"prompt_snapshot","system":"You are')
    assert cut.parts[0].k == "unknown" and cut.flags == ["system_prompt", "tool_schemas"]


def test_titles_and_bookkeeping_records() -> None:
    rec = conv({"type": "ai-title", "sessionId": "s", "aiTitle": "build and check"})
    assert (rec.label, rec.from_, [p.k for p in rec.parts]) == ("build and check", "", ["data"])
    snap = conv({"type": "file-history-snapshot", "messageId": "u-earlier", "snapshot": {"messageId": "u-earlier"}})  # field report 18
    assert (snap.id, snap.parent, snap.call) == ("", "", "")


# --------------------------------------------------------------------------- lines that are not records of this dialect


def test_three_kinds_of_undescribed_line_have_distinct_reasons() -> None:  # field reports 4, 5, 26
    reasons = set()
    for line in (b'{"type":"user","message":{"content":"cut', b'["x"]', b'{"type":"atis-latch","atis":"","sessionId":"s"}'):
        rec = conv(line)
        [p] = rec.parts
        assert p.k == "unknown" and p.raw() == line and p.state == "available" and p.bytes == len(line)
        reasons.add(p.text)
    assert len(reasons) == 3
    for line in (b"[]", b'"text"', b"12", b"null", b"", b"\xff\xfe{}"):
        assert conv(line).parts[0].k == "unknown"
    assert conv(b"\xff\xfe{}").parts[0].encoding == "base64"


def test_raw_u2028_stays_inside_the_line() -> None:  # field report 9
    line = '{"type":"user","uuid":"u","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"weird","v":"a\u2028b"}]}]}}'.encode()
    rec = conv(line)
    assert rec.bytes == len(line)
    assert rec.parts[0].data.raw == '[{"type":"weird","v":"a\u2028b"}]'.encode()  # source bytes, raw U+2028 kept
    assert conv(user("a\u2028b")).parts[0].text == "a\u2028b"


def test_escaped_lone_surrogates() -> None:  # field report 8
    line = b'{"type":"user","uuid":"u","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"caf\\udcb2"}]},"toolUseResult":{"file":"caf\\udcb2"}}'
    rec = conv(line)
    [p] = rec.parts
    assert p.text == "caf\ufffd"  # the one surrogate rule: U+FFFD in text (docs/session-data.md)
    assert p.bytes == len("caf\ufffd".encode())  # the text's size
    assert rec.replaced == 1  # one lone surrogate in text; the data part keeps it as source bytes
    p.text.encode("utf-8")  # well formed
    assert b'"replaced":1' in encode_record(rec)
    assert decode_record(encode_record(rec)).replaced == 1
    assert conv(b'{"type":"user","uuid":"u","message":{"role":"user","content":"plain"}}').replaced == 0
    # two tool-use ids that differ only in a lone surrogate stay two ids (fresh-user report)
    a = conv(b'{"type":"assistant","uuid":"a","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"toolu_\\udcb2","name":"X","input":{}},{"type":"tool_use","id":"toolu_\\udcb3","name":"X","input":{}}]}}')
    assert [q.id for q in a.parts] == ["toolu_\\udcb2", "toolu_\\udcb3"]
    assert p.data.raw == b'{"file":"caf\\udcb2"}'  # data keeps the source bytes
    raw_surrogate = b'{"type":"user","message":{"content":"caf\xed\xb2\x80"}}'
    # raw bytes that are not UTF-8 (a surrogate encoded as bytes: three of them): described with U+FFFD for each,
    # and the line's own bytes kept whole in an unknown part (session 13: the text was lost)
    r = conv(raw_surrogate)
    assert [(q.k, q.text) for q in r.parts[:1]] == [("text", "caf\ufffd\ufffd\ufffd")] and r.replaced == 3
    assert r.parts[-1].k == "unknown" and r.parts[-1].encoding == "base64" and r.parts[-1].raw() == raw_surrogate
    assert r.bytes == len(raw_surrogate)
    not_json = b'{"type":"user",\xe9"message":{}}'  # the bad byte outside any string: not JSON either
    [q] = conv(not_json).parts
    assert q.k == "unknown" and q.raw() == not_json
    # a bad byte in a key: the escaped line is no record this dialect describes (its type key is "\udcfftype"), so
    # the line lands whole as one unknown part of its own bytes, never one of the escapes (the fuzz test's find)
    bad_key = b'{"\xfftype":"last-prompt","lastPrompt":"check?","sessionId":"ef958aa1"}'
    [q] = conv(bad_key).parts
    assert q.k == "unknown" and q.raw() == bad_key and "not valid UTF-8" in q.text


def test_a_line_nested_too_deep_for_a_reader_is_unknown() -> None:
    deep = b'{"type":"progress","data":' + b"[" * 300 + b"]" * 300 + b"}"
    [p] = conv(deep).parts
    assert p.k == "unknown" and "deeper" in p.text
    ok = b'{"type":"progress","data":' + b"[" * 200 + b"]" * 200 + b"}"
    assert conv(ok).parts[0].k == "data"


@pytest.mark.parametrize("pad", [0, 5000, 70_000])  # a short line, one past the bracket count, one past CANONICAL_MAX
@pytest.mark.parametrize("spaced", [False, True])  # orjson's own spelling, and not
def test_the_nesting_limit_is_exact_at_253(pad: int, spaced: bool) -> None:
    # the record's value at depth 1, "data" at depth 2: a data value nesting n deep makes the line nest n + 1 deep
    from asz_adapters_claude.convert import MAX_SOURCE_DEPTH
    from asz_core import nesting_depth

    def line(n: int) -> bytes:
        inner = b"{}" if n % 2 else b"[]"
        for i in range(n - 1):
            inner = b'{"k":' + inner + b"}" if i % 2 else b"[1," + inner + b"]"
        sep = b" " if spaced else b""
        return b'{"type":"progress",' + sep + b'"pad":"' + b"x" * pad + b'","data":' + inner + b"}"

    for n in (MAX_SOURCE_DEPTH - 2, MAX_SOURCE_DEPTH - 1, MAX_SOURCE_DEPTH, MAX_SOURCE_DEPTH + 1):
        raw = line(n)
        assert nesting_depth(json.loads(raw)) == n + 1
        [p] = conv(raw).parts
        if n + 1 > MAX_SOURCE_DEPTH:
            assert p.k == "unknown" and "deeper" in p.text
        else:
            assert p.k == "data" and p.data.raw == compact(raw)


def test_a_15_mb_tool_use_result_line_converts_whole() -> None:  # field reports 1, 2
    body = "x" * (15 * 1024 * 1024)
    line = json.dumps(user([{"type": "tool_result", "tool_use_id": "t", "content": "done"}], toolUseResult={"status": "completed", "content": body})).encode()
    rec = conv(line)
    [p] = rec.parts
    assert p.data.value()["content"] == body and rec.bytes == len(line)


def test_duplicated_uuids_land_as_separate_records() -> None:  # field reports 20-23
    line = json.dumps(user("same")).encode()
    first = A.convert_line(src(), line, 1, 0)
    second = A.convert_line(src(), line, 2, len(line) + 1)
    assert first.id == second.id == "u1"
    assert (first.ord, second.ord, second.off) == (1, 2, len(line) + 1)


# --------------------------------------------------------------------------- other file kinds


def test_sidecar_journal_manifest_script_documents() -> None:
    meta = b'{"agentType":"general-purpose","description":"check the tests","toolUseId":"toolu_s","parentAgentId":"a1"}'
    rec = A.convert_document(src("agent_meta", stream="a2", mode="snapshot"), meta)
    assert (rec.ord, rec.off, rec.bytes, rec.child, rec.tool, rec.label, rec.started_by, rec.from_) == (1, 0, len(meta), "a2", "toolu_s", "check the tests", "a1", "runtime")
    assert rec.parts[0].data == RawJSON(meta)
    pretty = b'{\n  "runId": "wf_r",\n  "workflowName": "build-check"\n}'
    man = A.convert_document(src("workflow_manifest", batch="wf_r", mode="snapshot"), pretty)
    assert (man.batch, man.label, man.bytes) == ("wf_r", "build-check", len(pretty))
    assert man.parts[0].data == RawJSON(b'{"runId":"wf_r","workflowName":"build-check"}')
    js = b"export const meta = {}\n\xff"
    script = A.convert_document(src("workflow_script", batch="wf_r", mode="snapshot"), js)
    [p] = script.parts
    assert (p.k, p.raw(), p.encoding, script.batch) == ("unknown", js, "base64", "wf_r")
    j = A.convert_line(src("journal", batch="wf_r"), b'{"type":"result","agentId":"a3","result":{"x":1}}', 1, 0)
    assert (j.child, j.batch, j.flags, j.from_) == ("a3", "wf_r", ["child_result"], "runtime")
    started = A.convert_line(src("journal", batch="wf_r"), b'{"type":"started","agentId":"a3"}', 2, 51)
    assert started.flags == [] and started.trigger == ""


def test_a_cut_line_mid_file_costs_only_itself() -> None:  # field report 4
    good = [json.dumps(user(f"turn {i}")).encode() for i in range(6)]
    cut = b'{"type":"file-history-snapshot","messageId":"x","snapshot":{"trackedFileBack'
    data = b"\n".join(good[:3] + [cut] + good[3:]) + b"\n"
    off, kinds = 0, []
    for i, line in enumerate(data.split(b"\n")[:-1], start=1):
        rec = A.convert_line(src(), line, i, off)
        assert (rec.ord, rec.off) == (i, off)
        kinds.append(rec.parts[0].k)
        off += len(line) + 1
    assert kinds == ["text"] * 3 + ["unknown"] + ["text"] * 3


def test_the_plugin_manager_finds_the_adapter() -> None:
    from asz_core.plugins.manager import get_plugin_manager

    registry = get_plugin_manager()
    assert isinstance(registry.get("claude-code-local"), ClaudeCodeLocal)
    assert isinstance(registry.by_dialect("claude-code/1"), ClaudeCodeLocal)


# --------------------------------------------------------------------------- usage counts Session Data cannot carry

_USAGE_LINE = ('{"type":"assistant","uuid":"a1","message":{"id":"msg_1","role":"assistant","content":[],"stop_reason":"end_turn",'
               '"usage":{"input_tokens":3,"output_tokens":%s,"cache_read_input_tokens":18462,"cache_creation_input_tokens":123}}}')


@pytest.mark.parametrize("written", ["12.5", '"7"', "1000000000000000000000000000000", "9223372036854775808", "true", "[1]"])
def test_a_usage_count_that_is_no_64_bit_integer_is_listed_under_dropped(written: str) -> None:
    """Seed 000: usage counts are integers in 64 bits with their sign; one the adapter cannot carry is listed under
    ``dropped`` (what, bytes, why), never silently missing. The other counts land as the line has them."""
    line = (_USAGE_LINE % written).encode()
    source = json.loads(line)["message"]["usage"]
    rec = conv(line)
    assert (rec.usage.in_, rec.usage.out, rec.usage.cache_read, rec.usage.cache_write) == (
        source["input_tokens"], 0, source["cache_read_input_tokens"], source["cache_creation_input_tokens"])
    assert [(d.what, d.bytes) for d in rec.dropped] == [("usage count message.usage.output_tokens", len(written))]
    assert rec.dropped[0].why.endswith(": " + written)
    assert b'"dropped":[{"what":"usage count message.usage.output_tokens"' in encode_record(rec)


@pytest.mark.parametrize("written", ["-5", "-9223372036854775808", "9223372036854775807"])
def test_a_negative_or_largest_usage_count_is_a_64_bit_integer_and_lands_as_written(written: str) -> None:
    """A negative count is a Session Data integer: it lands as the source wrote it (as the original's integer field
    takes it), with no dropped entry; a reader sees it."""
    line = (_USAGE_LINE % written).encode()
    rec = conv(line)
    assert rec.usage.out == json.loads(line)["message"]["usage"]["output_tokens"] and rec.dropped == []
    assert f'"out":{written}'.encode() in encode_record(rec)


def test_a_null_usage_count_is_a_count_left_out_with_no_dropped_entry() -> None:
    """Seed 000: a field written as null is the same as a field left out."""
    rec = conv((_USAGE_LINE % "null").encode())
    assert rec.usage.out == 0 and rec.dropped == []
    assert b'"usage":{"in":3,"cache_read":18462,"cache_write":123}' in encode_record(rec)


def test_a_1_hour_cache_write_count_that_is_no_integer_is_listed_under_dropped() -> None:
    u = {"input_tokens": 3, "output_tokens": 211, "cache_creation_input_tokens": 8100, "cache_creation": {"ephemeral_1h_input_tokens": "8052"}}
    rec = conv(assistant([{"type": "text", "text": "x"}], stop_reason="end_turn", usage=u))
    assert (rec.usage.cache_write, rec.usage.cache_write_1h) == (8100, 0)
    assert [(d.what, d.bytes) for d in rec.dropped] == [("usage count message.usage.cache_creation.ephemeral_1h_input_tokens", len('"8052"'))]
