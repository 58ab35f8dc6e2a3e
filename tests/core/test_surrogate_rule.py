"""The one surrogate rule, applied by every dialect (docs/session-data.md, Byte fidelity; field report 8).

Each input is the smallest line of its dialect's real shape whose string holds
the escaped lone surrogate ``\\udcb2`` (Claude Code writes it for a file byte
0xB2 that was not UTF-8). The text part shows U+FFFD, a data part holding
source JSON keeps the escape byte for byte, and ``replaced`` counts the text
replacements; the record encodes and decodes as Session Data.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from asz_adapters_claude.plugin import ClaudeCodeLocal
from asz_adapters_kiro.convert import convert_line as kiro_line
from asz_adapters_langchain.dialect import convert_line as langchain_line
from asz_core import RawJSON, Source, loads_source, settle_surrogates
from asz_core.sessiondata import decode_record, encode_record

FFFD = "\ufffd"


def _roundtrip(rec):
    back = decode_record(encode_record(rec))
    assert back.replaced == rec.replaced
    return back


def test_claude_code_text_data_and_count() -> None:
    src = Source(session="s", kind="transcript", path=None, src="s.jsonl", dialect="claude-code/1")  # type: ignore[arg-type]
    line = (b'{"type":"user","uuid":"u1","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1",'
            b'"content":"caf\\udcb2 au lait \\udcb3"}]},"toolUseResult":{"stdout":"caf\\udcb2 au lait \\udcb3"}}')
    rec = ClaudeCodeLocal().convert_line(src, line, 1, 0)
    [p] = rec.parts
    assert p.text == f"caf{FFFD} au lait {FFFD}"
    assert p.data.raw == b'{"stdout":"caf\\udcb2 au lait \\udcb3"}'  # the source bytes, escapes kept
    assert rec.replaced == 2
    assert _roundtrip(rec).parts[0].text == p.text


def test_kiro_cli_text_and_count() -> None:
    src = Source(session="s", kind="transcript", path=None, src="messages.jsonl", dialect="kiro/1")  # type: ignore[arg-type]
    line = b'{"id":"m1","timestamp":"2026-05-21T20:35:47.332Z","payload":{"type":"user","content":"r\\udcb2sum\\u00e9"}}'
    rec = kiro_line(src, line, 1, 0)
    texts = [p.text for p in rec.parts if p.k == "text"]
    assert texts == [f"r{FFFD}sum\u00e9"]
    assert rec.replaced == 1
    _roundtrip(rec)


def test_langchain_text_and_count() -> None:
    src = Source(session="s", kind="transcript", path=None, src="a.jsonl", dialect="langsmith/1")  # type: ignore[arg-type]
    line = b'{"asz":{"kind":"input","id":"r1","time":"2026-11-20T10:00:00Z","text":"caf\\udcb2"}}'
    rec = langchain_line(src, line, 1, 0)
    assert [p.text for p in rec.parts] == [f"caf{FFFD}"]
    assert rec.replaced == 1
    _roundtrip(rec)


def test_langchain_built_data_keeps_the_escape() -> None:
    """A data value LangChain builds from decoded run fields writes the lone surrogate as its JSON escape, uncounted."""
    src = Source(session="s", kind="transcript", path=None, src="a.jsonl", dialect="langsmith/1")  # type: ignore[arg-type]
    line = b'{"asz":{"kind":"tool","id":"t1"},"op":"post","run":{"id":"t1","inputs":{"path":"caf\\udcb2"}}}'
    rec = langchain_line(src, line, 1, 0)
    [p] = rec.parts
    assert isinstance(p.data, RawJSON) and b'"path":"caf\\udcb2"' in p.data.raw
    assert rec.replaced == 0
    _roundtrip(rec)


def test_plugin_template_text_and_count(monkeypatch) -> None:
    template = Path(__file__).resolve().parents[2] / "plugin-template"
    if not (template / "asz_adapter_example" / "convert.py").exists():
        pytest.skip("plugin-template is not beside the tests")
    monkeypatch.syspath_prepend(str(template))  # the template's package imports only asz_core
    dialect = importlib.import_module("asz_adapter_example.convert")
    src = Source(session="s", kind="transcript", path=None, src="r.jsonl", dialect="example-codex/1")  # type: ignore[arg-type]
    line = (b'{"timestamp":"2026-11-20T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user",'
            b'"content":[{"type":"input_text","text":"caf\\udcb2"}]}}')
    rec = dialect.convert_line(src, line, 1, 0)
    assert [p.text for p in rec.parts] == [f"caf{FFFD}"]
    assert rec.replaced == 1
    _roundtrip(rec)


def test_identifiers_stay_apart_and_a_clean_record_counts_nothing() -> None:
    from asz_core import Part, Record

    rec = Record(id="a\udcb2", parts=[Part(k="call", id="toolu_\udcb2"), Part(k="call", id="toolu_\udcb3"), Part(k="text", text="ok")])
    settle_surrogates(rec)
    assert rec.id == "a\\udcb2" and [p.id for p in rec.parts[:2]] == ["toolu_\\udcb2", "toolu_\\udcb3"]
    assert rec.replaced == 0
    assert loads_source(b'"\\udcb2"') == "\udcb2"
    with pytest.raises(ValueError):
        loads_source(b'{"n":NaN,"s":"\\udcb2"}')
