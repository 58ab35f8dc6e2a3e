"""The text form an audit model reads says a LangGraph run failed and why (trial 37b F5: ``asz export ID --format
text`` said ``problems: none`` and printed the failed tool call without its error; ``asz ls`` said ``verified
errors`` and md ``Run failed`` with the error).

big_tool_app.py with size 0 (``big`` raises ``ValueError('big could not reach its store')`` with
``handle_tool_errors=False``, so the graph fails), traced by the official clients to a real ``asz ingest langsmith``
on loopback, landed by the real ``asz collect --once``. The error's text is the app's exception as Python writes it.
"""

from __future__ import annotations

import json

import pytest

from test_langchain_big_tool import run_app

from asz_adapters_langchain.naming import session_name

pytest.importorskip("langgraph")

RAISED = repr(ValueError("big could not reach its store"))  # what the tool raised, as the run's error begins


def test_the_text_form_says_the_run_failed_and_its_error(tmp_path, receiver_factory, run_asz):
    root = tmp_path / "root"
    r = receiver_factory(root)
    run_app(tmp_path, r.url, 0)
    run_asz("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    sid = session_name(["big", "big-1"])
    (row,) = json.loads(run_asz("ls", "--root", str(root), "--json").stdout)
    assert (row["api_errors"], row["failed_runs"]) == (1, 1)
    text = run_asz("export", sid, "--format", "text", "--root", str(root)).stdout
    head = text.split("\n\n", 1)[0].splitlines()
    assert f"errors: {row['errors_said']}" in head and "lines: prompt 1, tool_call 2, run_failed 1" in head, head
    error = _posted_error(root, sid, "big")  # the tool run's error as the client posted it (RAISED + its traceback)
    assert error.startswith(RAISED + "Traceback (most recent call last):"), error[:200]
    size = len(error.encode())
    assert f"] tool_call, error\n| big: n: 2\n{_said(error)}" in text, text
    assert f"] run_failed\n{_said(_posted_error(root, sid, 'LangGraph'))}" in text, text  # the graph's own error
    audit = [json.loads(x) for x in run_asz("export", sid, "--audit", "--root", str(root)).stdout.splitlines()]
    (call,) = [x for x in audit if x.get("tool") == "big"]
    assert call["error"]["bytes"] == size and call["error"]["left_out"] == max(0, size - 1000)
    assert call["error"]["text"] == error.encode()[:1000].decode(errors="ignore")
    assert audit[0]["errors"] == row["errors_said"]


def _said(error: str) -> str:
    """The text form's size line and first quoted line of ``error`` (at most 1,000 bytes written, docs/reading.md)."""
    size = len(error.encode())
    cut = "whole" if size <= 1000 else f"the first 1,000 written, {size - 1000:,} left out"
    return f"error: {size:,} bytes, {cut}\n| {error.splitlines()[0]}\n"


def _posted_error(root, sid: str, name: str) -> str:
    """The ``error`` of the tool run ``name`` in the receiver's staged lines of session ``sid`` (the source)."""
    staged = root / "_ingest" / "langsmith" / "sessions" / sid / "main.jsonl"
    errors = {json.loads(line)["run"].get("error") for line in staged.read_text().splitlines()
              if json.loads(line).get("run", {}).get("name") == name}
    (error,) = errors - {None}
    return error
