"""The audit forms say what failed (trial 37b F5: ``asz export ID --format text`` of a failed trace said ``problems:
none`` and printed the failed tool call without its error, while ``asz ls`` said ``verified errors``). Render 11.

Real input: the corpus's 8463c716 transcript (13 tool results flagged ``is_error``, six of them over 1,000 bytes, and 2
more in the copies of its sub-agent's lines, drawn as its tool calls since fix50a)
with one Claude Code ``system/api_error`` line planted as tests/reading/test_ls_claude_api_error.py plants it, collected
by the real ``asz collect --once``. Every expectation is counted from the transcript written: each ``is_error`` result's
content and its ``tool_use``'s name, the ``api_error`` line's ``error`` object; one error text is given an AWS key
id to be masked.
"""

from __future__ import annotations

import json
import re

import pytest

from cli_helpers import asz_in_process as asz
from reading_helpers import planted_root
from test_ls_claude_api_error import _one_api_error

TRANSCRIPT = "claude-code/projects/-home-user-spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
#: Claude Code's wording of a refused call (its result is flagged is_error too): status refused, no error text.
REFUSED = "The user doesn't want to proceed with this tool use."
SIBLING = "<tool_use_error>Sibling tool call errored</tool_use_error>"
AWS = "AKIAIOSFODNN7EXAMPLE"  # AWS's documented example access key id
LIMIT = 1_000  # docs/reading.md: at most 1,000 bytes of an error's text are written


@pytest.fixture(scope="module")
def planted(corpus_dir, tmp_path_factory):
    base = tmp_path_factory.mktemp("text-failures")
    def plant(lines: list[dict]) -> None:
        _one_api_error(lines)
        for d in lines:  # a credential in one failed call's error text (the audit masks it by default)
            for b in (d.get("message") or {}).get("content") or ():
                if isinstance(b, dict) and b.get("content") == SIBLING:
                    b["content"] += f"\naws configure: {AWS}"

    root = planted_root(corpus_dir, base, TRANSCRIPT, plant)
    (path,) = (base / "projects" / "-home-user-spotter").glob("8463c716-*.jsonl")
    return root, [json.loads(ln) for ln in path.read_text().splitlines()]


def _content(d: dict):
    """A line's message content: its own, or (a progress record copying a line of sub-agent a7be2f0, whose own file is
    not in this root: its tool calls are drawn from the copies, fix50a) the copied line's."""
    data = d.get("data") if d.get("type") == "progress" else None
    if isinstance(data, dict) and data.get("type") == "agent_progress":
        return ((data.get("message") or {}).get("message") or {}).get("content")
    return (d.get("message") or {}).get("content")


def _failed_in_source(lines: list[dict]) -> list[tuple[str, str]]:
    """(tool name, error text) of every is_error tool result of the transcript that is no refusal, in the file order
    of their calls: the main thread's and the sub-agent's its progress records copy."""
    uses = [b for d in lines for b in (_content(d) or ()) if isinstance(b, dict) and b.get("type") == "tool_use"]
    names, at = {b["id"]: b["name"] for b in uses}, {b["id"]: i for i, b in reversed(list(enumerate(uses)))}
    out = []
    for d in lines:
        content = _content(d)
        for b in content if isinstance(content, list) else ():
            if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("is_error"):
                text = b["content"] if isinstance(b["content"], str) else "\n".join(
                    x.get("text", "") for x in b["content"] if isinstance(x, dict))
                if not text.removeprefix("Error: ").startswith(REFUSED):
                    out.append((at[b["tool_use_id"]], names[b["tool_use_id"]], text))
    return [(name, text) for _, name, text in sorted(out, key=lambda x: x[0])]


def _cut(text: str) -> tuple[str, int]:
    raw = text.encode("utf-8")
    return raw[:LIMIT].decode("utf-8", "ignore"), len(raw)


def test_the_audit_form_carries_each_failed_calls_error_bounded(planted):
    root, lines = planted
    source = _failed_in_source(lines)
    assert len(source) == 15 and sum(len(t.encode()) > LIMIT for _, t in source) == 6  # 13 own, 2 copied
    out = asz("export", "8463c716", "--audit", "--no-redact", "--root", str(root))
    audit = [json.loads(x) for x in out.stdout.splitlines()]
    failed = [x for x in audit if x.get("kind") == "tool_call" and x["status"] == "error"]
    assert len(failed) == len(source)
    for line, (name, text) in zip(failed, source):  # both in time order: the transcript's
        excerpt, size = _cut(text)
        assert line["tool"] == name
        assert line["error"] == {"text": excerpt, "bytes": size, "left_out": size - len(excerpt.encode())}
    assert all("error" not in x for x in audit if x.get("kind") == "tool_call" and x["status"] != "error")


def test_the_text_form_says_the_error_and_the_header_says_errors_as_asz_ls(planted):
    root, lines = planted
    (error,) = [d["error"] for d in lines if d.get("subtype") == "api_error"]
    (row,) = json.loads(asz("ls", "--root", str(root), "--json").stdout)
    assert row["api_errors"] == 1 and row["errors_said"]
    text = asz("export", "8463c716", "--format", "text", "--no-redact", "--root", str(root)).stdout
    head = text.split("\n\n", 1)[0].splitlines()
    assert f"errors: {row['errors_said']}" in head
    said = json.dumps(error, separators=(",", ":"))
    block = f"] api_error\nerror: {len(said.encode()):,} bytes, whole\n| {said}\n\n"
    assert block in text
    source = _failed_in_source(lines)
    blocks = re.findall(r"\] tool_call, error\n(?:\|[^\n]*\n)+error: ([^\n]*)\n((?:\|[^\n]*\n)*)", text)
    assert len(blocks) == len(source)
    for (words, quoted), (_, whole) in zip(blocks, source):
        excerpt, size = _cut(whole)
        away = size - len(excerpt.encode())
        assert words == (f"{size:,} bytes, whole" if not away else
                         f"{size:,} bytes, the first {size - away:,} written, {away:,} left out")
        got = "\n".join(x[2:] if x.startswith("| ") else "" for x in quoted.rstrip("\n").split("\n"))
        from asz_core.reading.termtext import md_visible

        assert got == md_visible(excerpt)


def test_a_copy_of_render_10_still_checks(planted, tmp_path):
    """A text copy made before render 11 (no errors line, no error texts) checks against the root it came from."""
    from asz_core.reading.export_render import drawing

    root, _ = planted
    copy = tmp_path / "c.txt"
    with drawing(10):
        asz("export", "8463c716", "--format", "text", "--out", str(copy), "--root", str(root))
    body = json.loads((tmp_path / "c.txt.manifest.json").read_text())
    old = copy.read_text()
    assert "\nerrors: " not in old and "] api_error" not in old and "\nerror: " not in old
    body["render"] = 10
    (tmp_path / "c.txt.manifest.json").write_text(json.dumps(body))
    ok = asz("verify", "--export", str(copy), "--root", str(root))
    assert ok.returncode == 0, ok.stdout
    body["render"] = 11  # the same bytes said to be render 11: the errors it lacks are changed lines
    (tmp_path / "c.txt.manifest.json").write_text(json.dumps(body))
    assert asz("verify", "--export", str(copy), "--root", str(root)).returncode == 1


def test_a_credential_in_an_error_text_is_masked_and_counted_written(planted):
    root, _ = planted
    audit = [json.loads(x) for x in asz("export", "8463c716", "--audit", "--root", str(root)).stdout.splitlines()]
    (call,) = [x for x in audit if x.get("kind") == "tool_call" and (x.get("error") or {}).get("text", "").startswith(f"{SIBLING}\n")]
    assert call["error"]["text"] == f"{SIBLING}\naws configure: AKIA…MPLE" and AWS not in json.dumps(audit)
    assert audit[0]["credentials"]["written"] == {"places": 1, "credentials": 1}
    text = asz("export", "8463c716", "--format", "text", "--root", str(root)).stdout
    assert "| aws configure: AKIA…MPLE" in text and AWS not in text
