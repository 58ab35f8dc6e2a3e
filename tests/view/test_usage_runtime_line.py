"""Usage a runtime writes on a line of its own (``from: runtime``), as a third-party adapter lands it (trial 39b F1).

Seed 000 (Record): ``usage`` is what the provider reported for the call, with no word on who wrote the record;
adapters.md: records sharing a ``call`` are one ``llm.call``. So a runtime record carrying ``call`` and ``usage``
counts for that call; where the agent's record of the call carries usage too, the call's usage is its last record
carrying usage in landed order, reported once. The truth is the counts the test lands, summed here by hand.
"""

from __future__ import annotations

import json

from asz_core.flow.parse import parse_root
from asz_core.testing.asm_build import SessionBuilder, assistant, part, rec, text, user_input, when
from asz_core.view import build_view
from cli_helpers import asz_ok

T0 = 1767225600000


def _runtime_usage(id: str, call: str, ms: int, usage: dict) -> object:
    """The runtime's line of one call's token counts: a data part, ``call`` the request id (none: '')."""
    return rec(part("data", data={"kind": "usage"}), id=id, call=call, from_="runtime", usage=usage, time=when(ms),
               model="quill-large" if call else "")


def _steps(doc: dict, kind: str) -> list[dict]:
    out, todo = [], list(doc["talks"]) + list(doc["loose"])
    while todo:
        n = todo.pop()
        out += [n] if n.get("kind") == kind else []
        todo.extend(n.get("children", ()))
    return out


def test_runtime_usage_lines_count_once_per_call(tmp_path):
    """req_1's counts are on the runtime's line alone; req_2's on the agent's record (a stub, out 1) and then the
    runtime's (out 4): counted once, the last; req_3 carries none. Before trial 39b's fix asz counted no token."""
    root = tmp_path / "root"
    r1 = {"in": 100, "out": 20, "cache_read": 300, "cache_write": 40}
    r2_agent, r2 = {"in": 7, "out": 1}, {"in": 7, "out": 4, "cache_read": 0, "cache_write": 0}
    SessionBuilder(root, "quill-1").land("transcript", [
        user_input("s:1", "t1", "Rename the module, please.", T0),
        assistant("s:2", "req_1", "s:1", T0 + 1000, text("Renaming it now.")),
        _runtime_usage("s:3", "req_1", T0 + 1100, r1),
        assistant("s:4", "req_2", "s:3", T0 + 2000, text("Done, tests pass."), usage=r2_agent),
        _runtime_usage("s:5", "req_2", T0 + 2100, r2),
        assistant("s:6", "req_3", "s:5", T0 + 3000, text("Anything else?")),
    ])
    assert parse_root(root).ok
    doc = build_view(root, "quill-1")
    s = doc["summary"]
    want = {k: r1[k] + r2[k] for k in r1}  # in 107, out 24: req_2's agent stub (out 1) is not added
    assert s["usage"] == want and (s["llm_calls"], s["calls_with_usage"]) == (3, 2), s
    calls = {c["id"]: c for c in _steps(doc, "llm.call")}
    assert sorted(calls) == ["call/req_1", "call/req_2", "call/req_3"]
    assert [c["attrs"]["fragments"] for _, c in sorted(calls.items())] == [2, 2, 1]
    assert len(_steps(doc, "message.assistant")) == 3  # the runtime's lines draw no message
    got = json.loads(asz_ok("usage", "--root", str(root), "--json", "--total-once"))["total"]
    assert {k: got["usage"][k] for k in want} == want and (got["calls"], got["calls_with_usage"]) == (3, 2)
    said = asz_ok("conversation", "quill-1", "--root", str(root))
    assert "tokens in 107, out 24, cache read 300, cache write 40" in said, said
    # trial 39b F3: req_3 carries no counts, so the figures count 2 of 3 calls: marked +, with the line saying so
    line = "+ 1 of 3 model call(s) carry no token counts (their records hold none): the tokens and cost of each row " \
           "marked + count its other calls only: "
    listed = asz_ok("ls", "--root", str(root))
    assert f" {sum(want.values()):,} + " in listed and line + "quill-1 (1 of 3)" in listed, listed
    table = asz_ok("usage", "session", "--root", str(root))
    assert "\ntotal +  " in table and line + "quill-1 Rename the module, please. (1 of 3), total (1 of 3)" in table, table


def test_usage_naming_no_call_is_said_so_not_unrecorded(tmp_path):
    """A runtime line carrying counts but no ``call`` is in no call and no figure: the conversation says the counts
    name no model call, never that the runtime recorded none (trial 39b F1's false message)."""
    root = tmp_path / "root"
    SessionBuilder(root, "quill-2").land("transcript", [
        user_input("s:1", "t1", "Rename the module, please.", T0),
        assistant("s:2", "req_1", "s:1", T0 + 1000, text("Renaming it now.")),
        _runtime_usage("s:3", "", T0 + 1100, {"in": 5, "out": 6, "cache_read": 0, "cache_write": 0}),
    ])
    assert parse_root(root).ok
    s = build_view(root, "quill-2")["summary"]
    assert (s["llm_calls"], s["calls_with_usage"]) == (1, 0)
    assert any(p.startswith("usage outside any call: 1 record(s) with usage that name no call id") and "1/3 (in 5, out 6"
               in p for p in s["problems"]), s["problems"]
    said = asz_ok("conversation", "quill-2", "--root", str(root))
    assert ("tokens not counted: 1 record(s) carry token counts but name no model call, so no figure counts them "
            "(1 model call(s) carry none; the problems name the records)") in said, said
    assert "recorded no token counts" not in said


def test_the_page_marks_what_asz_ls_and_asz_usage_mark(tmp_path):
    """Trial 39b F3 on the page: ``/api/usage``'s rows carry ``calls_with_usage`` beside ``calls`` (3 calls, 2 with
    counts: the session below, counted by hand), and app.js's list line and tooltip words (``partialListLine``,
    ``partialText``, run in Node on ``asz ls --json``'s rows, the keys ``/api/conversations`` gives) are ``asz ls``'s
    line under its table. Skipped without Node."""
    import re
    import shutil
    import subprocess
    from pathlib import Path

    import pytest

    from asz_core.view.rate_words import page_words
    from asz_core.view.usage_buckets import hours_answer, usage_hours

    root = tmp_path / "root"
    SessionBuilder(root, "quill-3").land("transcript", [
        user_input("s:1", "t1", "Rename the module, please.", T0),
        assistant("s:2", "req_1", "s:1", T0 + 1000, text("Renaming it now."), usage={"in": 5, "out": 2}),
        assistant("s:3", "req_2", "s:2", T0 + 2000, text("Done.")),
        assistant("s:4", "req_3", "s:3", T0 + 3000, text("Anything else?"), usage={"in": 9, "out": 4}),
    ])
    assert parse_root(root).ok
    answer = hours_answer(usage_hours(build_view(root, "quill-3")), counted=1, conversations=1)
    assert (answer["total"]["calls"], answer["total"]["calls_with_usage"]) == (3, 2), answer["total"]
    assert [(q["calls"], q["calls_with_usage"]) for q in answer["quarters"]] == [(3, 2)]  # T0 .. T0+3 s: one quarter
    assert [(m["calls"], m["calls_with_usage"]) for m in answer["models"]] == [(3, 2)]
    # /api/usage/blocks' rows carry it too (session 40): the page's blocks table marks its row + by the same rule
    from asz_core.view.blocks_answer import blocks_answer

    blocks = blocks_answer(root, [])
    assert [(b["calls"], b["calls_with_usage"]) for b in blocks["blocks"]] == [(3, 2)]  # 3 s apart: one block
    assert (blocks["total"]["calls"], blocks["total"]["calls_with_usage"]) == (3, 2)
    node = shutil.which("node")
    if node is None:
        pytest.skip("no node to run app.js's partialListLine")
    rows = json.loads(asz_ok("ls", "--root", str(root), "--json"))
    listed = asz_ok("ls", "--root", str(root))
    cli = next(ln for ln in listed.splitlines() if ln.startswith("+ "))
    src = (Path(__file__).resolve().parents[2] / "asz_core" / "view" / "static" / "app.js").read_text(encoding="utf-8")
    fns = [re.search(r"\n  function %s\([^\n]*\}\n|\n  function %s\(.*?\n  \}\n" % (n, n), src, re.S).group(0)
           for n in ("callsUncounted", "partialText", "partialListLine", "shortId")]  # a one-line function, or one up to its }
    script = (f"const WORDS = {json.dumps(page_words())};\nconst PARTIAL_MARK = WORDS.partial_mark;\n"
              "const SHOWN_IDS = {};\n"  # the list's shown ids (/api/conversations): none here, each id's first 8
              "function num(n) { return n.toLocaleString('en-US'); }\n"
              "function rowUnrecorded(r) { return r.usage_recorded === false; }\n" + "".join(fns) +
              f"console.log(JSON.stringify([partialListLine({json.dumps(rows)}), partialListLine([]), "
              "callsUncounted(3, 3), callsUncounted(3, 0), callsUncounted(3, 2)]));")
    p = subprocess.run([node, "-e", script], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    line, none, every, no_usage, one = json.loads(p.stdout)
    assert line == cli + "." and (none, every, no_usage, one) == ("", 0, 0, 1), (line, cli)


def test_undescribed_records_naming_their_call_are_said_apart(tmp_path):
    """Trial 39b F6 (the rest, session 40): a record whose every part is unknown but whose ``call`` names its provider
    call belongs to that call, which is counted (with any usage the record carries): the problems line, ``asz usage``'s
    line and ``--json`` say those apart from a record naming no call, which may have been a model call. The session
    below, counted by hand: req_1 (a text record and an unreadable one carrying out 9), req_2 (an unreadable record
    alone), one unreadable record naming no call: 2 calls, 1 with usage (in 5, out 9), 3 records undescribed, 2 named."""
    root = tmp_path / "root"
    unk = part("unknown", data="\x00garbled")
    SessionBuilder(root, "quill-9").land("transcript", [
        user_input("s:1", "t1", "Rename the module, please.", T0),
        assistant("s:2", "req_1", "s:1", T0 + 1000, text("Renaming it now."), usage={"in": 5, "out": 2}),
        assistant("s:3", "req_1", "s:2", T0 + 1500, unk, usage={"in": 5, "out": 9}),
        assistant("s:4", "req_2", "s:3", T0 + 2000, unk),
        rec(unk, id="s:5", parent="s:4", time=when(T0 + 2500)),
    ])
    assert parse_root(root).ok
    s = build_view(root, "quill-9")["summary"]
    assert (s["llm_calls"], s["calls_with_usage"], s["usage"]["out"]) == (2, 1, 9)
    assert s["problems"] == [
        "undescribed records that could hold calls: 3 transcript record(s) the dialect could not read (kept whole as "
        "unknown parts): 1 naming no model call, so no figure counts a call they may hold: 1/5; 2 naming the model call "
        "they belong to (each such call is counted, with any usage they carry; only their content was not read): "
        "1/3 (req_1), 1/4 (req_2)"]
    assert s["undescribed_calls"] == {"records": 3, "naming_calls": 2}  # the line's counts as data, read by asz usage (fix41b)
    said = asz_ok("usage", "daily", "--root", str(root), "--tz", "UTC").splitlines()
    assert ("! undescribed: 3 transcript record(s) the dialect could not read: 1 naming no model call, in no day's row "
            "and no total above (each may have been a model call), and 2 naming the model call they belong to, counted "
            "in its day's row and the total (only their content was not read); asz conversation ID lists them under "
            "undescribed: quill-9 (3 record(s), 2 naming their call)") in said, said
    (row,) = json.loads(asz_ok("usage", "daily", "--root", str(root), "--tz", "UTC", "--json"))
    assert row["undescribed"] == [{"conversation": "quill-9", "records": 3, "naming_calls": 2}] and row["calls"] == 2
