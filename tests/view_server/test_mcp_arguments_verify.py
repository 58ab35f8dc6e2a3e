"""``asz verify``'s arguments check on a real corpus transcript, held against the document's (trial 23a, F8; session 26).

The transcript is the corpus's ``-home-user-claude-reliability`` session (``de3b8b19``): two tool calls, a ``Write``
(``toolu_01R3SZZYuAq6mou5RqHE4rzF``) and a ``Bash`` (``toolu_01GNvoSEyj9jAsgFtJBduDPp``), renamed here as MCP calls
(``mcp__probe__write``, ``mcp__probe__run``). The hook payloads are the corpus's probe payloads
(``mcp-hooks-2.1.282.jsonl``) made this session's and fed to the real ``asz hook``:

- the ``echo`` payload made the Write call's, sent the transcript's own input: **agree**;
- the ``rewrite`` payload made the Bash call's (the server was sent ``{"text": "rewritten by the hook"}``): **differ**,
  one of the session's two calls;
- the ``echo`` payload as it is (its call ``toolu_probe_1_0``), into this session: a call the transcript does not
  hold, **not compared**;

and then the transcript's landed file changed in one byte of the Bash call's input (a record that does not verify).
``asz verify`` reads the execution files and the lines naming those calls only; the counts and warnings must be what
each conversation's document says (``asz conversation --json``), and it must build no document. Every expected size
and digest is computed here from the source files, never by asz.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from test_mcp_arguments_check import canonical, probe_payloads
from test_mcp_executions_read import hook, renamed
from view_server_helpers import asz, parse

SESSION = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROJECT = "-home-user-claude-reliability"
WRITE, BASH, ABSENT = "toolu_01R3SZZYuAq6mou5RqHE4rzF", "toolu_01GNvoSEyj9jAsgFtJBduDPp", "toolu_probe_1_0"
SENT = b'{"text":"rewritten by the hook"}'  # what the rewrite payload's server was sent, as canonical JSON


def tool_input(transcript: Path, tool_id: str) -> str:
    """The JSON text of the ``input`` of the ``tool_use`` block ``tool_id`` of the transcript."""
    for line in transcript.read_text().splitlines():
        for b in (json.loads(line).get("message") or {}).get("content") or ():
            if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("id") == tool_id:
                return json.dumps(b["input"], ensure_ascii=False, separators=(",", ":"))
    raise AssertionError(f"no tool_use {tool_id} in {transcript}")


def digest(b: bytes) -> dict:
    return {"bytes": len(b), "sha256": hashlib.sha256(b).hexdigest()}


@pytest.fixture(scope="module")
def landed(tmp_path_factory, corpus_dir) -> dict:
    base = tmp_path_factory.mktemp("mcp-verify")
    projects = base / "projects"
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECT, projects / PROJECT)
    main = projects / PROJECT / f"{SESSION}.jsonl"
    main.chmod(0o644)
    renamed(main, ('"name":"Write"', '"name":"mcp__probe__write"'), ('"name":"Bash"', '"name":"mcp__probe__run"'))
    cases = {p["probe_case"]: p for p in probe_payloads(corpus_dir)}
    assert cases["rewrite"]["tool_input"] == {"text": "rewritten by the hook"} and cases["echo"]["tool_use_id"] == ABSENT
    data = base / "hookdata"
    own = json.loads(tool_input(main, WRITE))
    for payload in (dict(cases["echo"], session_id=SESSION, tool_use_id=WRITE, tool_name="mcp__probe__write", tool_input=own),
                    dict(cases["rewrite"], session_id=SESSION, tool_use_id=BASH, tool_name="mcp__probe__run"),
                    dict(cases["echo"], session_id=SESSION)):
        hook(json.dumps(payload).encode(), data)
    root = base / "root"
    asz("collect", "--once", "--adapter", "claude-code-local", "--source", str(projects), "--root", str(root))
    asz("collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root))
    parse(root)
    return {"root": root, "main": main, "base": base}


def document_checks(root: Path) -> dict:
    """``{tool call id: arguments_check}`` of the session's document (``asz conversation --json``)."""
    doc = json.loads(asz("conversation", SESSION, "--json", "--root", str(root), check=False).stdout)
    return {e["tool"]: e["arguments_check"] for e in doc["tool_executions"]}


def arguments_counts(counts: dict) -> tuple[int, int, int]:
    """``(agree, differ, not compared)`` of an arguments section's counts."""
    return counts["executions_agree"], counts["executions_differ"], counts["executions_not_compared"]


def verify_json(root: Path) -> tuple[int, dict]:
    p = asz("verify", "--json", "--root", str(root), check=False)
    return p.returncode, json.loads(p.stdout)


def test_one_of_two_calls_differs_and_a_call_not_in_the_transcript(landed):
    root, main = landed["root"], landed["main"]
    said = canonical(tool_input(main, BASH))
    assert len(said) == 127  # {"command":"chmod +x /tmp/tmp74wiyiny/hello.sh && …","description":"Make script executable and run it"}
    checks = document_checks(root)
    assert checks == {WRITE: {"result": "agree"}, BASH: {"result": "differ", "transcript": digest(said)},
                      ABSENT: {"result": "cannot_compare", "why": "no tool call of the transcript has this id"}}
    p = asz("verify", "--root", str(root), check=False)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert "checked 3 tool execution record(s) against the transcript's input: agree 1, differ 1, not compared 1" in lines
    (warn,) = [x for x in lines if "arguments differ" in x]
    execution, row = next((f, i) for f in sorted((root / SESSION).rglob("execution-*.sd"))
                          for i, x in enumerate(f.read_bytes().splitlines()[1:-1], 1) if BASH.encode() in x)
    sent = digest(SENT)
    assert warn == (f"warning: {execution}:{row + 1}: arguments differ [arguments]: session {SESSION}, execution record "
                    f"row {row}, tool call {BASH} mcp__probe__run: the server was sent {sent['bytes']} bytes (sha256 "
                    f"{sent['sha256'][:12]}…), the transcript's input is {len(said)} bytes (sha256 "
                    f"{hashlib.sha256(said).hexdigest()[:12]}…); a hook before the call may have rewritten it "
                    f"(asz conversation {SESSION} says which)")
    code, data = verify_json(root)
    assert code == 0 and (data["executions_agree"], data["executions_differ"], data["executions_not_compared"]) == (1, 1, 1)


def test_verify_builds_no_document(landed, monkeypatch):
    """The check reads the landed files it needs and prepares no conversation's document (issue 22: verify as a
    command against SHA-256): the same section with the document's preparation made to fail."""
    from asz_core.view import document
    from asz_core.view.executions_check import arguments_section

    def refused(*a, **k):
        raise AssertionError("asz verify's arguments check prepared a document")

    monkeypatch.setattr(document, "_prepare", refused)
    got = arguments_section(landed["root"])
    assert got is not None and arguments_counts(got.counts) == (1, 1, 1)
    # both calls' payloads are the probe's echoes, not the transcript's Write and Bash results (trial 30c F3)
    assert [w.problem for w in got.warnings] == ["result differs", "arguments differ", "result differs"]
    assert (got.counts["executions_result_differs"], got.counts["executions_outcome_differs"],
            got.counts["executions_name_differs"]) == (2, 0, 0)
    assert arguments_section(landed["root"], "86cb6fec") is None  # another session: none of its records is here


def test_a_transcript_record_that_does_not_verify(landed):
    """One byte of the Bash call's input changed in the landed transcript file (its closing digest no longer binds
    it): verify fails on the file (exit 1) and the document and verify both say neither call of that file is
    compared; the differing call's warning is gone."""
    root = landed["base"] / "damaged"
    shutil.copytree(landed["root"], root)
    (sd,) = [f for f in (root / SESSION).rglob("transcript-*.sd") if BASH.encode() in f.read_bytes()]
    data = sd.read_bytes()
    assert data.count(b"Make script executable and run it") == 1 and WRITE.encode() in data  # both calls in this file
    sd.chmod(0o644)
    sd.write_bytes(data.replace(b"Make script executable and run it", b"Make script executable and run iT"))
    checks = document_checks(root)
    why = "the transcript's record of the call does not verify"
    assert checks == {WRITE: {"result": "cannot_compare", "why": why}, BASH: {"result": "cannot_compare", "why": why},
                      ABSENT: {"result": "cannot_compare", "why": "no tool call of the transcript has this id"}}
    code, got = verify_json(root)
    assert code == 1 and not got["ok"]
    assert (got["executions_agree"], got["executions_differ"], got["executions_not_compared"]) == (0, 0, 3)
    assert not [w for w in got.get("warnings", []) if w["problem"] == "arguments differ"]
    from asz_core.view.executions_check import arguments_section

    # on its own (no landed check's problems given) the check reads the file's closing line against its bytes itself
    alone = arguments_section(root)
    assert alone is not None and arguments_counts(alone.counts) == (0, 0, 3)
    assert alone.counts["executions_result_differs"] == 0  # neither call's file verifies: nothing held against it


def test_a_quoted_id_in_other_text_joins_no_call(tmp_path):
    """The line search looks for the id as a JSON string (``"toolu_x"``): a text quoting it inside other words holds
    it escaped (``\\"toolu_x\\"``) and is not found; a text that is the id alone is found, and the join then takes the
    call part itself (row 3, block 1), not that text. Rows are counted from the lines written here."""
    from asz_core.view.arguments_check import calls_named
    from asz_core.view.executions_check import _rows_holding

    tid = "toolu_x"
    lines = [{"header": 1},
             {"parts": [{"k": "text", "text": f'the prompt says "{tid}" here'}]},
             {"parts": [{"k": "text", "text": tid}]},
             {"parts": [{"k": "text", "text": "calling"}, {"k": "call", "id": tid, "data": {"a": 1}}]},
             {"closing": 1}]
    f = tmp_path / "transcript.sd"
    f.write_bytes(b"".join(json.dumps(x, separators=(",", ":")).encode() + b"\n" for x in lines))
    found = list(_rows_holding(str(f), [json.dumps(tid).encode()]))
    assert [row for row, _ in found] == [2, 3]  # row 1 quotes it inside other words; the closing line is no row
    assert calls_named(((1, row, json.loads(line)) for row, line in found), {tid}) == {tid: (1, 3, 1)}


def test_a_file_changed_under_the_search_ends_it(tmp_path):
    """A file with no line end at all (not the sealed file the landed check passed: changed since) gives no line and
    ends: before, the line count never moved past the match and the search did not end. An empty file and a
    one-byte one give none."""
    import threading

    from asz_core.view.executions_check import _rows_holding

    cases = {"open": b'{"h":1} "toolu_x" and no line end', "empty": b"", "one": b"\n"}
    got: dict = {}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        t = threading.Thread(target=lambda n=name: got.__setitem__(n, list(_rows_holding(str(tmp_path / n), [b'"toolu_x"']))),
                             daemon=True)
        t.start()
        t.join(10)
        assert not t.is_alive(), f"{name}: the search did not end"
    assert got == {"open": [], "empty": [], "one": []}


@pytest.mark.parametrize("root", ["/r/root", "root", "./root", "root/", "//r/root", ".", "/", "r/../root"])
@pytest.mark.parametrize("rel", ["s/streams/main/transcript-1.sd", "s", "s//x.sd", "s/./x.sd", "./s/x.sd", "s/../x.sd",
                                 "s/x.sd/", ".", "s/.hidden.sd", "s/x.sd/."])
def test_the_warnings_paths_are_pathlibs(root, rel):
    """The arguments check says a file's path as pathlib makes it (``Path(path).relative_to(root).as_posix()``, then
    ``str(root / rel)``), without pathlib where plain text is the same (issue 22, session 39): held against pathlib
    itself, for roots and paths with empty, ``.`` and ``..`` parts."""
    from asz_core.view.executions_check import _rel, _under

    base = Path(root)
    path = f"{base}/{rel}"  # as a listing joins it under the root
    try:
        want = Path(path).relative_to(base).as_posix()
    except ValueError:
        with pytest.raises(ValueError):
            _rel(base, path)
    else:
        assert _rel(base, path) == want
    assert _under(base, rel) == str(base / rel)
