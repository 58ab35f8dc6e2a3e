"""A reply streamed in chunks and a call's start event, as docs/adapters.md says the readers draw them (trial 49c F4,
F9: "A reply streamed in chunks, and a call's start").

The plugin template's adapter, installed by a real pip as its own distribution, with one change: a line's top-level
``request_id`` becomes the record's ``call`` on the model's records and its token count (and, with ``START_CALL``
set, on the start event too). One session: a prompt, a start event, three assistant chunks and a token count, all of
request ``req_1``. The document holds one ``llm.call`` node for it, counted once, with one ``message.assistant`` step
per chunk in line order; the start event carrying ``call`` or not changes no node.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import pip_installed_plugins
from doc_walk import dicts_in

TEMPLATE = Path(__file__).resolve().parents[2] / "plugin-template"
SID = "0196a1c0-0000-7000-8000-00000000c0de"

MODULE = '''
import os

import orjson

from asz_core import hookimpl
from asz_adapter_example.plugin import ExampleCodexAdapter


class Chunked(ExampleCodexAdapter):
    def convert_line(self, source, line, ord, off):
        rec = super().convert_line(source, line, ord, off)
        rid = orjson.loads(line).get("request_id")
        if isinstance(rid, str) and (rec.from_ == "agent" or rec.usage is not None or os.environ.get("START_CALL")):
            rec.call = rid
        return rec


@hookimpl
def asz_register_adapters():
    return [Chunked]
'''

CHUNKS = ("The answer ", "is forty", "-two.")


def _lines() -> list[dict]:
    t = "2026-11-22T10:00:0{}.000Z".format
    out = [{"timestamp": t(0), "type": "session_meta", "payload": {"id": SID, "cwd": "/w"}},
           {"timestamp": t(1), "type": "turn_context", "payload": {"model": "m-stream", "cwd": "/w"}},
           {"timestamp": t(2), "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "What is it?"}]}},
           {"timestamp": t(3), "type": "event_msg", "request_id": "req_1", "payload": {"type": "request_started"}}]
    out += [{"timestamp": t(4 + i), "type": "response_item", "request_id": "req_1",
             "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": c}]}}
            for i, c in enumerate(CHUNKS)]
    usage = {"input_tokens": 120, "cached_input_tokens": 20, "output_tokens": 7}
    out.append({"timestamp": t(8), "type": "event_msg", "request_id": "req_1",
                "payload": {"type": "token_count", "info": {"last_token_usage": usage}}})
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if not (TEMPLATE / "asz_adapter_example").is_dir():
        pytest.skip("plugin-template is not beside the tests")
    return pip_installed_plugins(tmp_path_factory.mktemp("chunks"),
                                 [("asz-adapter-chunks-test", "asz_adapter_chunks_test", MODULE, "example-codex")])


def _document(site: Path, base: Path, start_call: bool) -> dict:
    src, root = base / "src", base / "root"
    f = src / "2026" / "11" / "22" / f"rollout-2026-11-22T10-00-00-{SID}.jsonl"
    f.parent.mkdir(parents=True)
    f.write_bytes(b"".join(json.dumps(o, separators=(",", ":")).encode() + b"\n" for o in _lines()))
    env = dict(os.environ, HOME=str(base), PYTHONPATH=os.pathsep.join([str(site), str(TEMPLATE)]))
    env.pop("START_CALL", None)
    if start_call:
        env["START_CALL"] = "1"

    def asz(*args: str) -> str:
        p = subprocess.run([sys.executable, "-m", "asz_core.cli.entry", *args, "--root", str(root)], capture_output=True,
                           text=True, env=env, timeout=300)
        assert p.returncode == 0, p.stdout + p.stderr
        return p.stdout

    asz("collect", "--once", "--adapter", "example-codex", "--source", str(src))
    return json.loads(asz("conversation", SID[:8], "--json"))


def _nodes(doc: dict) -> list[dict]:
    """Every node of the document's talks (a dict with a ``kind``), in document order."""
    return [x for x in dicts_in(doc["talks"]) if "kind" in x and "id" in x]


def test_chunks_of_one_call_are_one_call_with_a_message_per_chunk(site, tmp_path):
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    doc = _document(site, tmp_path / "a", start_call=False)
    nodes = _nodes(doc)
    (call,) = [n for n in nodes if n["kind"] == "llm.call"]
    msgs = [n for n in nodes if n["kind"] == "message.assistant"]
    assert [n["parent"] for n in msgs] == [call["id"]] * len(CHUNKS)
    assert [n.get("text") for n in msgs] == list(CHUNKS), msgs  # one step per chunk, in line order, as landed
    usage = doc["summary"]["usage"]
    assert (usage["in"], usage["out"], usage["cache_read"]) == (100, 7, 20)  # once, from the token count line
    other = _document(site, tmp_path / "b", start_call=True)
    assert _nodes(other) == _nodes(doc)  # the start event's call changes no node
    assert other["summary"]["usage"] == usage
