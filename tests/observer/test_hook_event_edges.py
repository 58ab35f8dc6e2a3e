"""``asz hook`` on the edges of a payload trial 30c found (F1, F6, F7, F8): an ``error`` that is no string, a key
given twice, an id holding a newline or U+2028, and the refusal of an unsafe session id naming the rule it breaks.

Each event is the corpus's probe payload ``echo`` (``mcp-hooks-2.1.282.jsonl``) or its ``crash`` payload, changed in
the one member the case is about, fed to the real ``asz hook`` process as bytes (a key given twice cannot be made by
``json.dumps``), and then collected and read with the real commands.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_observer_hook import run_hook

REPO = Path(__file__).resolve().parents[2]


def probe(corpus_dir: Path, case: str) -> dict:
    path = next((corpus_dir / "hooks").glob("apache__*mcp-hooks-2.1.282.jsonl"))
    return next(e for e in map(json.loads, path.read_bytes().splitlines()) if e["probe_case"] == case)


def asz(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True, cwd=REPO,
                       timeout=300)
    assert not check or p.returncode == 0, p.stdout + p.stderr
    return p


def records(data: Path, session: str) -> list[dict]:
    return [json.loads(x) for x in (data / "output" / session / "main.execution.jsonl").read_bytes().splitlines()]


@pytest.mark.parametrize("error, kind", [("123", None), ("1.5", None), ("true", None), ("null", None),
                                         ('{"m":"x"}', None), ('["Connection closed"]', None),
                                         ('"Connection closed"', "transport")])
def test_an_error_that_is_no_string_gets_no_class(corpus_dir: Path, tmp_path: Path, error: str, kind) -> None:
    """docs/claude-code-hooks.md: "(absent) no error text (absent, empty or not a string)" (trial 30c F1: the number
    123 was classed ``unclassified``); the error's size is kept either way."""
    event = json.dumps({k: v for k, v in probe(corpus_dir, "crash").items() if k != "error"})
    raw = (event[:-1] + f',"error":{error}}}').encode()
    assert run_hook(raw, tmp_path).returncode == 0
    (rec,) = records(tmp_path, probe(corpus_dir, "crash")["session_id"])
    assert rec.get("failure") == kind and rec["outcome"] == "failed"
    assert rec["error"]["bytes"] == len(json.dumps(json.loads(error), separators=(",", ":")).encode())


def test_a_tool_use_id_that_is_a_number_is_none(corpus_dir: Path, tmp_path: Path) -> None:
    """A number is no string for any member the hook reads as text: a ``tool_use_id`` 123 is refused as none."""
    event = json.dumps({k: v for k, v in probe(corpus_dir, "echo").items() if k != "tool_use_id"})
    assert run_hook((event[:-1] + ',"tool_use_id":123}').encode(), tmp_path).returncode == 0
    assert not (tmp_path / "output").exists()
    assert "the event has no tool_use_id" in (tmp_path / "log" / "plugin.log").read_text()


def test_a_key_given_twice_is_named_and_said_on_landing(corpus_dir: Path, tmp_path: Path) -> None:
    """Trial 30c F6: ``"tool_use_id":"t4","tool_use_id":"t5"`` kept ``t5`` without a trace. The last is read (as
    every JSON reader reads it, and as a transcript line's is), the earlier one named under ``dropped`` in the
    transcript's words, and collect warns of it and the conversation says it as it does a transcript line's."""
    echo = probe(corpus_dir, "echo")
    event = json.dumps({k: v for k, v in echo.items() if k != "mcp_server"})
    raw = (event[:-1] + ',"tool_use_id":"t5","mcp_server":{"name":"a","name":"probe"}}').encode()
    assert raw.count(b'"tool_use_id"') == 2
    data = tmp_path / "data"
    assert run_hook(raw, data).returncode == 0
    (rec,) = records(data, echo["session_id"])
    assert rec["tool"] == "t5" and rec["server"]["name"] == "probe"
    why = "the same object gives this key again later: the last value is read, as JSON readers read it, and this one is not"
    twice = [d for d in rec["dropped"] if d["what"].startswith("key given twice ")]
    assert twice == [{"what": "key given twice tool_use_id", "bytes": len(json.dumps(echo["tool_use_id"])), "why": why},
                     {"what": "key given twice mcp_server.name", "bytes": len('"a"'), "why": why}]
    root = tmp_path / "root"
    p = asz("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root))
    assert "1 line(s) give a key twice in one object (line 1: tool_use_id, mcp_server.name)" in p.stderr, p.stderr
    out = asz("conversation", echo["session_id"], "--root", str(root)).stdout
    assert "problem: keys given twice: 1 record(s)" in out and "1/1 tool_use_id, mcp_server.name" in out


@pytest.mark.parametrize("session, broken", [("...", "it begins with '.'"), ("-rf", "it begins with '-'"),
                                             ("a/b", "it holds '/'"), ("a" * 201, "it is 201 characters long"),
                                             ("\uff41b", "it begins with '\uff41'")])
def test_an_unsafe_session_id_is_refused_naming_the_rule_broken(corpus_dir: Path, tmp_path: Path, session: str,
                                                                 broken: str) -> None:
    """Trial 30c F8: ``...`` and ``-rf`` hold only letters, digits, '.', '_', '-', yet were refused for that."""
    raw = json.dumps(dict(probe(corpus_dir, "echo"), session_id=session), ensure_ascii=False).encode()
    assert run_hook(raw, tmp_path).returncode == 0
    assert not (tmp_path / "output").exists()
    (line,) = (tmp_path / "log" / "plugin.log").read_text().splitlines()
    assert line.endswith(f"session_id {session!r} is not a safe file name (a letter or digit first, then up to 199 "
                         f"letters, digits, '.', '_' or '-'): {broken}; nothing recorded")


def test_an_id_or_name_breaking_a_line_is_escaped_in_the_exports(corpus_dir: Path, tmp_path: Path) -> None:
    """Trial 30c F7: a ``tool_use_id`` holding a newline and a tool name holding U+2028 are kept as sent (the record
    is what the hook saw) and drawn escaped, each on its one list line of the Markdown export and the text."""
    echo = probe(corpus_dir, "echo")
    data = tmp_path / "data"
    for tool, name in (("t7\nx", echo["tool_name"]), ("t8", "mcp__probe__t\u2028x")):
        assert run_hook(json.dumps(dict(echo, tool_use_id=tool, tool_name=name)).encode(), data).returncode == 0
    assert [r["tool"] for r in records(data, echo["session_id"])] == ["t7\nx", "t8"]
    root = tmp_path / "root"
    asz("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root))
    md = asz("export", echo["session_id"], "--format", "md", "--root", str(root)).stdout
    listed = md.split("## Tool executions with no step\n\n")[1].split("\n\n")[0].strip("\n").split("\n")
    assert [x.split(": ")[0] for x in listed] == [f"- t7\\nx {echo['tool_name']}", "- t8 mcp__probe__t\\u2028x"]
    assert "\u2028" not in md
    text = asz("conversation", echo["session_id"], "--root", str(root)).stdout
    assert "  t7\\nx mcp__probe__echo: " in text and "  t8 mcp__probe__t\\u2028x: " in text
