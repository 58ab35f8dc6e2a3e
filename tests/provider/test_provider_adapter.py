"""The claude-code-provider adapter: the §5.3 renames, discovery, a body on its own, registration."""

from __future__ import annotations

import json

from asz_adapters_claude.provider import DIALECT, ClaudeCodeProvider, body_meta
from asz_core.plugins import get_plugin_manager
from asz_core.plugins.adapter import VOCABULARY

REQ = {"model": "claude-opus-5", "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
       "system": [{"type": "text", "text": "x-anthropic-billing-header: cc_version=2.1.260; cc_prompt_id=p-1; cc_prev_req=req_0;"}],
       "metadata": {"user_id": json.dumps({"device_id": "d", "session_id": "S-1"})}}


def test_renames_into_model_words():
    m = body_meta("3f0a.request.json", json.dumps(REQ).encode()).meta
    assert (m.role, m.record_id, m.session, m.run, m.previous_request, m.model) == ("request", "3f0a.request", "S-1", "p-1", "req_0", "claude-opus-5")
    r = body_meta("req_7.response.json", b'{"id":"msg_7","model":"claude-opus-5","content":[]}').meta
    assert (r.role, r.record_id, r.call, r.request) == ("response", "req_7.response", "msg_7", "req_7")
    assert body_meta("x.request.json", b"[1]").problem == "not a JSON object"
    assert body_meta("notes.txt", b"{}").meta is None


def test_registered_and_declared():
    a = get_plugin_manager().get("claude-code-provider")
    assert isinstance(a, ClaudeCodeProvider) and a.kinds == ("provider_body",) and a.dialects == (DIALECT,)
    assert [t.unified for t in a.glossary(DIALECT)] == list(VOCABULARY)
    assert a.flag_map(DIALECT) == []
    assert a.default_source_root({"CLAUDE_CONFIG_DIR": "/c"}).as_posix() == "/c/asz/provider-bodies"


def test_discover_lists_requests_and_leaves_responses_to_the_pass(tmp_path):
    (tmp_path / "a.request.json").write_text(json.dumps(REQ))
    (tmp_path / "req_1.response.json").write_text('{"id":"msg_1"}')
    (tmp_path / "other.txt").write_text("x")
    d = ClaudeCodeProvider().discover(tmp_path)
    assert [(s.session, s.src, s.mode) for s in d.sources] == [("S-1", "a.request.json", "snapshot")]
    assert len(d.skipped) == 2
    assert ClaudeCodeProvider().discover(tmp_path / "absent").sources == []


def test_a_body_on_its_own_is_one_record_that_refers_to_nothing(tmp_path):
    (tmp_path / "a.request.json").write_text(json.dumps(REQ))
    a = ClaudeCodeProvider()
    src = a.discover(tmp_path).sources[0]
    rec = a.convert_document(src, (tmp_path / "a.request.json").read_bytes())
    man = rec.parts[-1].data
    assert man["schema"] == "provider_body/1" and rec.id == "a.request" and rec.run == "p-1"
    assert all("copy" not in s and "piece" not in s for s in man["segments"])
