"""The usual Claude Code line filled in C (``asz_adapters_claude.usual_line``) lands the same record as the Python of
transcript.py and blocks.py, which stays its definition (issue 22, session 19).

Both ways, with the compiled module and with it set aside (as an install without a C compiler runs): every line of the
shared corpus, and hand-made assistant and bookkeeping lines of every shape the C takes and of many it must leave to
the Python (usage counts that are listed under dropped, rates that are not standard, blocks of other shapes, a
``toolUseResult``, origins, flags, lone surrogates, a byte order mark). The C must also take the usual lines, or it
is worth nothing: the corpus's count is pinned.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from asz_adapters_claude import convert, transcript
from asz_core import Source
from asz_core.sessiondata import encode_record

CORPUS = Path(__file__).resolve().parents[3] / ".." / "shared" / "corpus" / "claude-code" / "projects"
SRC = Source(session="s", kind="transcript", path=Path("t.jsonl"), src="t.jsonl", dialect=convert.DIALECT)

compiled = pytest.mark.skipif(transcript.usual_line is None,
                              reason="asz_adapters_claude.usual_line was not built (setup.py's optional extension: no C compiler at install)")


class _Counting:
    """The compiled module with its answers counted."""

    def __init__(self, module):
        self.module, self.taken, self.left = module, 0, 0

    def fill(self, *args):
        got = self.module.fill(*args)
        self.taken += got is True
        self.left += got is None
        return got


def _both_ways(monkeypatch, lines: list[tuple[Source, bytes]]) -> tuple[list[bytes], list[bytes], _Counting]:
    counting = _Counting(transcript.usual_line)
    with monkeypatch.context() as m:
        m.setattr(transcript, "usual_line", counting)
        fast = [encode_record(convert.convert_record(src, line, i + 1, 7)) for i, (src, line) in enumerate(lines)]
    with monkeypatch.context() as m:
        m.setattr(transcript, "usual_line", None)
        slow = [encode_record(convert.convert_record(src, line, i + 1, 7)) for i, (src, line) in enumerate(lines)]
    return fast, slow, counting


@compiled
@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"{CORPUS} is absent (the shared corpus is not beside the repo)")
def test_every_corpus_line_lands_the_same_both_ways(monkeypatch):
    lines = []
    for path in sorted(CORPUS.rglob("*.jsonl")):
        kind = "journal" if path.name == "journal.jsonl" else "transcript"
        src = Source(session="s", kind=kind, path=path, src=path.name, dialect=convert.DIALECT)
        lines += [(src, line) for line in path.read_bytes().split(b"\n") if line]
    fast, slow, counting = _both_ways(monkeypatch, lines)
    assert fast == slow
    assert (len(lines), counting.taken, counting.left) == (3140, 2354, 782)


def _assistant(content: object = None, usage: object = None, message: dict | None = None, **line) -> bytes:
    msg = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-opus-4-5", "stop_reason": None,
           "content": [{"type": "text", "text": "hello"}] if content is None else content,
           "usage": {"input_tokens": 3, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 7,
                     "output_tokens": 11, "service_tier": "standard"} if usage is None else usage}
    msg.update(message or {})
    rec = {"parentUuid": "p1", "isSidechain": False, "userType": "external", "cwd": "/w", "sessionId": "s",
           "version": "2.1.3", "gitBranch": "main", "message": msg, "requestId": "req_1", "type": "assistant",
           "uuid": "u1", "timestamp": "2026-01-01T00:00:00.000Z"}
    rec.update(line)
    return orjson.dumps({k: v for k, v in rec.items() if v is not ...})


SIG = {"type": "thinking", "thinking": "let me see", "signature": "EqoBCkgIBxABGAIiQ"}
CALL = {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls -la", "n": [1, {"a": None}]}}
LINES = [
    _assistant(),
    _assistant([]),
    _assistant([SIG, {"type": "text", "text": "é \u2028 \U0001F600"}, CALL]),
    _assistant([{"type": "thinking", "thinking": ""}, {"type": "thinking", "thinking": None, "signature": ""},
                {"type": "thinking"}, {"type": "thinking", "thinking": "x", "signature": 5}]),
    _assistant([{"type": "thinking", "thinking": 5}]),
    _assistant([{"type": "redacted_thinking", "data": "abc"}]),
    _assistant([{"type": "tool_use", "id": "t", "name": "mcp__github__create_issue", "input": {}},
                {"type": "tool_use", "id": "t", "name": "mcp__a__b__c"}, {"type": "tool_use", "name": "mcp__x___y"},
                {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {"query": "q"}},
                {"type": "tool_use", "id": 5, "name": None, "input": "text"}]),
    _assistant([{"type": "text"}]),
    _assistant([{"type": "text", "text": 5}]),
    _assistant([{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA=="}}]),
    _assistant([{"type": "tool_result", "tool_use_id": "t", "content": "x"}]),
    _assistant(["a string block"]),
    _assistant([{"text": "no type"}]),
    _assistant("a string content"),
    _assistant("<task-notification><tool-use-id>toolu_9</tool-use-id></task-notification>"),
    _assistant(usage={}),
    _assistant(usage={"input_tokens": 0, "output_tokens": 0}),
    _assistant(usage={"input_tokens": None, "output_tokens": 4}),
    _assistant(usage={"input_tokens": -4, "output_tokens": 2**63 - 1}),
    _assistant(usage={"input_tokens": 2**63, "output_tokens": 1}),
    _assistant(usage={"input_tokens": 12.5, "output_tokens": 1}),
    _assistant(usage={"input_tokens": True, "output_tokens": 1}),
    _assistant(usage={"input_tokens": "7", "output_tokens": 1}),
    _assistant(usage={"input_tokens": 1, "cache_creation": {"ephemeral_1h_input_tokens": 9, "ephemeral_5m_input_tokens": 1}}),
    _assistant(usage={"input_tokens": 1, "cache_creation": {"ephemeral_1h_input_tokens": -9}}),
    _assistant(usage={"input_tokens": 1, "cache_creation": {"ephemeral_1h_input_tokens": None}}),
    _assistant(usage={"input_tokens": 0, "cache_creation": {}}),
    _assistant(usage={"input_tokens": 1, "cache_creation": None}),
    _assistant(usage={"input_tokens": 1, "speed": "fast"}),
    _assistant(usage={"input_tokens": 1, "speed": None}),
    _assistant(usage={"input_tokens": 1, "speed": "standard", "service_tier": "priority"}),
    _assistant(usage={"input_tokens": 1, "inference_geo": "us"}),
    _assistant(usage={"input_tokens": 1, "inference_geo": None, "service_tier": None}),
    _assistant(usage={"input_tokens": 1, "inference_geo": "not_available"}),
    _assistant(usage={"input_tokens": 1, "inference_geo": "global"}),
    _assistant(usage={"input_tokens": 1, "inference_geo": ""}),
    _assistant(usage="none"),
    _assistant(message={"model": "<synthetic>", "stop_reason": "end_turn"}),
    _assistant(message={"model": 5, "stop_reason": "", "id": None}),
    _assistant(message={"stop_reason": 7}),
    _assistant(isMeta=True, isCompactSummary=True),
    _assistant(isMeta=1, isCompactSummary="true"),
    _assistant(origin={"kind": "human"}),
    _assistant(origin={"kind": "task-notification"}),
    _assistant(origin={"kind": "other"}),
    _assistant(origin={"kind": 3}),
    _assistant(origin="human"),
    _assistant(toolUseResult={"status": "completed", "agentId": "a0123456789abcdef"}),
    _assistant(toolUseResult="a string"),
    _assistant(uuid=None, parentUuid=5, timestamp=..., cwd="\u00e9t\u00e9", promptId="pr", logicalParentUuid="lp"),
    _assistant(message=None) if False else orjson.dumps({"type": "assistant", "message": "not an object", "uuid": "u"}),
    orjson.dumps({"type": "assistant", "uuid": "u"}),
    orjson.dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": "x"}]}}),
    _assistant().replace(b'"text":"hello"', b'"text":"\\ud800 lone"'),
    _assistant().replace(b'"text":"hello"', b'"text":"h\\u00e9llo"'),
    b"\xef\xbb\xbf" + _assistant(),
    b" " + _assistant() + b" ",
    _assistant([{"type": "tool_use", "id": "t", "name": "n", "input": {"x": 1.5}}]),
    _assistant([{"type": "tool_use", "id": "t", "name": "n", "input": {"x": 1, "x": 2}}]).replace(b'"x":1', b'"x":1,"x":2'),
    _assistant([{"type": "text", "text": "x" * 70000}]),
]
for kind, extra in (("progress", {"data": {"type": "hook_progress", "n": 1}, "toolUseID": "t", "parentToolUseID": "p"}),
                    ("file-history-snapshot", {"messageId": "m", "snapshot": {"trackedFileBackups": {}}}),
                    ("summary", {"summary": "A title", "leafUuid": "l"}), ("summary", {"summary": 5}),
                    ("ai-title", {"aiTitle": "Title"}), ("ai-title", {}), ("custom-title", {"customTitle": "t"}),
                    ("queue-operation", {"operation": "enqueue", "content": "x"}), ("last-prompt", {"lastPrompt": "x"}),
                    ("permission-mode", {"permissionMode": "plan"}), ("agent-name", {"agentName": "a"}),
                    ("pr-link", {"url": "u"}), ("bridge-session", {"x": 1}), ("progress", {"isMeta": True}),
                    ("progress", {"isCompactSummary": True, "origin": {"kind": "human"}}),
                    ("progress", {"toolUseResult": {"status": "async_launched"}}),
                    ("progress", {"message": {"content": "x"}}), ("system", {"subtype": "api_error"}),
                    ("attachment", {"attachment": {"type": "x", "content": "y"}}), ("user", {"message": {"content": "hi"}}),
                    ("atis-latch", {})):
    LINES.append(orjson.dumps({"type": kind, "uuid": "u2", "parentUuid": "u1", "timestamp": "2026-01-01T00:00:01Z",
                               "sessionId": "s", **extra}))


@compiled
def test_hand_made_lines_land_the_same_both_ways(monkeypatch):
    fast, slow, counting = _both_ways(monkeypatch, [(SRC, line) for line in LINES])
    for line, a, b in zip(LINES, fast, slow):
        assert a == b, line[:300]
    assert (counting.taken, counting.left) == (48, 28)  # both answers are exercised


@compiled
def test_a_line_the_c_leaves_is_untouched():
    """``fill`` decides before it writes: None leaves every field of the record as it was."""
    from asz_core import Record

    for line in (_assistant(usage={"input_tokens": 12.5}), _assistant([{"type": "image"}]),
                 _assistant(toolUseResult={"x": 1}), orjson.dumps({"type": "user", "message": {"content": "x"}})):
        rec = Record(ord=1, off=0, sha="abc", bytes=len(line))
        before = encode_record(rec)
        assert transcript.usual_line.fill(rec, orjson.loads(line), line, 0, len(line)) is None
        assert encode_record(rec) == before


_text = st.text(st.characters(codec="utf-8"), max_size=8) | st.sampled_from(["", "mcp__s__t", "mcp__a__b__c", "<synthetic>",
                                                                              "standard", "global", "\u2028"])
_any = st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) | _text
_block = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "tool_use", "server_tool_use", "thinking", "redacted_thinking", "image", "x"])},
    optional={"text": _any, "thinking": _any, "signature": _any, "id": _any, "name": _any,
              "input": st.dictionaries(_text, _any, max_size=3) | _any})
_usage = st.dictionaries(st.sampled_from(["input_tokens", "output_tokens", "cache_read_input_tokens",
                                          "cache_creation_input_tokens", "speed", "service_tier", "inference_geo"]),
                         _any | st.integers(0, 10**6), max_size=7)
_split = st.dictionaries(st.sampled_from(["ephemeral_1h_input_tokens", "ephemeral_5m_input_tokens"]),
                         _any | st.integers(0, 10**6), max_size=2)


@compiled
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_block | _any, max_size=4), _usage, st.none() | _split, _any, _any, _any, _any, _any)
def test_any_assistant_line_lands_the_same_both_ways(monkeypatch, blocks, usage, split, model, stop, meta, origin, uuid):
    if split is not None:
        usage = {**usage, "cache_creation": split}
    line = _assistant(blocks, usage, {"model": model, "stop_reason": stop}, isMeta=meta, uuid=uuid,
                      origin={"kind": origin})
    fast, slow, _ = _both_ways(monkeypatch, [(SRC, line)])
    assert fast == slow
