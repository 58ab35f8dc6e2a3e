"""The two real Kiro CLI sessions of ../shared/corpus/kiro read by ``asz ls``, the audit prose, ``asz search`` and
``asz usage`` as fully as a Claude Code session is (trial 19: F10, F11, F22, F25).

Expected values are the corpus's own: 8e247382 (CLI 2.x) wrote notes.md and greet.sh with ``write`` ``create``, ran
``bash greet.sh`` with ``shell``, searched with ``grep`` and ``glob``; sess_5e804080 (CLI 3.x) created four files
with ``create`` and ran ``sh test-scripts/hello.sh`` with ``run_command``. Never reads the machine's own ~/.kiro:
the corpus home is passed with ``--source``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import asz_in_process

V3_SESSION = "sess_5e804080-466c-4f65-bde9-f6133b7068f6"
V2_SESSION = "8e247382-c779-440f-b1db-ed9bad1afaee"
V2_DIR = "/private/var/folders/zn/6bkhzvmx4lvf3mgr7qqr2x940000gq/T/kiro-fixture-fs-tools-XXXX.W9fNVpVZqh"


@pytest.fixture(scope="module")
def root(corpus_dir: Path, tmp_path_factory) -> Path:
    home = corpus_dir / "kiro" / "home" / ".kiro"
    if not (home / "sessions").is_dir():
        pytest.skip(f"{home}/sessions is absent")
    r = tmp_path_factory.mktemp("kiro-reading") / "root"
    p = asz_in_process("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(r))
    assert p.returncode == 0 and " rounds=2 " in p.stdout, p.stdout + p.stderr
    return r


def _run(*args: str) -> tuple[str, str]:
    p = asz_in_process(*args)
    assert p.returncode == 0, f"asz {' '.join(args)} exited {p.returncode}\n{p.stdout}\n{p.stderr}"
    return p.stdout, p.stderr


def test_ls_counts_kiro_shell_runs_and_derived_file_writes(root: Path) -> None:
    """F10, then this session: each session ran one shell command; each file write carries a changes/1 record the
    adapter derived from what the runtime wrote: sess_5e804080's four ``create`` calls hold the content before and
    after (2 + 1 + 1 + 6 lines added, none removed); 8e247382's two ``write`` ``create`` hold only what the file became,
    so they count as changed files with their lines unknown. None is left to (+N)."""
    rows = {r["id"]: r for r in json.loads(_run("ls", "--json", "--root", str(root))[0])}
    keys = ("bash_runs", "changes", "lines_added", "lines_removed", "changes_not_derived")
    assert {k: rows[V2_SESSION][k] for k in keys} == \
        {"bash_runs": 1, "changes": 2, "lines_added": 0, "lines_removed": 0, "changes_not_derived": 0}
    assert {k: rows[V3_SESSION][k] for k in keys} == \
        {"bash_runs": 1, "changes": 4, "lines_added": 10, "lines_removed": 0, "changes_not_derived": 0}
    out = _run("ls", "--root", str(root))[0]
    assert "(+N) in CHANGES" not in out


def test_a_kiro_write_joins_its_step_with_the_runtime_s_contents(root: Path) -> None:
    """The derived records as the document lists them (workspace_changes, seed 004): one per write, joined to its
    tool step, captured by kiro, the file's path and sizes as the runtime wrote them."""
    doc = json.loads(_run("conversation", V3_SESSION, "--json", "--root", str(root))[0])
    got = [(c["step"], c["captured_by"], c["tool_name"], f["path"], f["operation"], f["before"]["present"],
            f["after"]["bytes"], f["diff"], f["additions"], f["deletions"])
           for c in doc["workspace_changes"] for f in c["changes"]]
    assert got == [
        ("tool/tooluse_ExByNgY10RwsTBNQRKPBqd", "kiro", "create", "test-scripts/hello.sh", "create", False, 29, "available", 2, 0),
        ("tool/tooluse_tE4C8fYqHXGZcLs0NgaduD", "kiro", "create", "test-scripts/hello.py", "create", False, 21, "available", 1, 0),
        ("tool/tooluse_mJvusAY5dZ5aXn4yhUAztx", "kiro", "create", "test-scripts/hello.js", "create", False, 28, "available", 1, 0),
        ("tool/tooluse_CgWMWTUULnDfLPo4PX5CCS", "kiro", "create", "test-scripts/hello.c", "create", False, 82, "available", 6, 0)]
    doc = json.loads(_run("conversation", V2_SESSION, "--json", "--root", str(root))[0])
    got = [(c["step"], c["tool_name"], c["time"], f["path"], f["operation"], f["before"], f["after"]["bytes"], f["diff"],
            f["additions"]) for c in doc["workspace_changes"] for f in c["changes"]]
    assert got == [
        ("tool/tooluse_gFrggjV9mXidPDS17K1ITK", "write", "", f"{V2_DIR}/notes.md", "create", {"present": None, "bytes": None},
         19, "unavailable", None),
        ("tool/tooluse_cSd8AEH4CNqdO9BaFCQQ4X", "write", "", f"{V2_DIR}/greet.sh", "create", {"present": None, "bytes": None},
         21, "unavailable", None)]


def _audit_calls(root: Path, session: str) -> list[str]:
    out = _run("export", session, "--format", "prose", "--audit", "--root", str(root))[0]
    return [d["text"] for d in map(json.loads, out.splitlines()) if d.get("kind") == "tool_call"]


def test_audit_names_the_file_a_kiro_call_writes_and_the_pattern_it_searches(root: Path) -> None:
    """F11: the audit form's tool_call lines name what each Kiro call acted on, from its input's own fields."""
    assert _audit_calls(root, V2_SESSION) == [
        f"write: create {V2_DIR}/notes.md", f"read: {V2_DIR}/notes.md", f"write: create {V2_DIR}/greet.sh",
        "shell: bash greet.sh", f"grep: fixture in {V2_DIR}", f"glob: *.sh in {V2_DIR}"]
    calls = _audit_calls(root, V3_SESSION)
    assert [c for c in calls if not c.startswith("general-task-execution: ")] == [
        "create: test-scripts/hello.sh", "read_files: test-scripts/hello.sh", "run_command: sh test-scripts/hello.sh",
        "create: test-scripts/hello.py", "create: test-scripts/hello.js", "create: test-scripts/hello.c"]


def test_html_export_and_the_page_sum_a_kiro_call_up_as_the_audit_form_does(root: Path) -> None:
    """One rule for every reader (placing.call_summary): an HTML export's folded tool line and the page's row (the
    headings' ``gists``) read the adapter's summary, as the audit form does (they read ``create`` and the read's JSON)."""
    from asz_core.view.placing import gists

    html = _run("export", V2_SESSION, "--format", "html", "--root", str(root))[0]
    lines = re.findall(r'<code class="gist"><bdi>([^<]*)</bdi>', html)
    assert [x.replace("&quot;", '"') for x in lines] == [c.split(": ", 1)[1] for c in _audit_calls(root, V2_SESSION)]
    doc = json.loads(_run("conversation", V2_SESSION, "--json", "--root", str(root))[0])
    assert gists(doc, "kiro/1") == {
        "tool/tooluse_gFrggjV9mXidPDS17K1ITK": f"create {V2_DIR}/notes.md", "tool/tooluse_snTlZqKfPN0hk8qRb1CeLB": f"{V2_DIR}/notes.md",
        "tool/tooluse_cSd8AEH4CNqdO9BaFCQQ4X": f"create {V2_DIR}/greet.sh", "tool/tooluse_Z6Y0sa9zMD1VTl1vXaJDvs": f"fixture in {V2_DIR}",
        "tool/tooluse_DBNDfgv8VsfjKCLEgN9PgX": f"*.sh in {V2_DIR}"}
    assert gists(doc, "claude-code/1") == {}  # another dialect's adapter says nothing of these names


def test_call_gist_leaves_other_shapes_to_the_readers_rule() -> None:
    from asz_adapters_kiro.gists import call_gist

    assert call_gist("shell", {"command": "bash greet.sh"}) is None
    assert call_gist("write", {"command": "create"}) is None  # no path: the readers' own rule
    assert call_gist("grep", {"pattern": "fixture"}) == "fixture"
    assert call_gist("read", {"operations": [{"mode": "Line"}]}) is None
    assert call_gist("write", "not an object") is None


def _window(root: Path, *window: str) -> tuple[list[dict], str]:
    out, err = _run("search", "fixture", "--dialect", "kiro", "--json", "--limit", "100", *window, "--root", str(root))
    return json.loads(out), err


def test_a_day_window_keeps_the_timeless_hits_of_a_conversation_held_in_it(root: Path) -> None:
    """F25: 8e247382 happened on 2026-05-27 (18:15:03 to 18:15:27): its 13 replies, tool inputs and results carry no
    time of their own and are hits of that day; the prompt is the one hit with a time."""
    everything, _ = _window(root)
    assert len(everything) == 18 and sum(1 for h in everything if h["at"] == 0) == 13
    hits, err = _window(root, "--since", "2026-05-27", "--until", "2026-05-27")
    assert {h["conversation"] for h in hits} == {V2_SESSION}
    assert len(hits) == 14 and sum(1 for h in hits if h["at"] == 0) == 13 and "no time" not in err
    # after every conversation: a window that matches nothing, said and exit 1 as asz ls says it (trial 26b F2)
    after = asz_in_process("search", "fixture", "--dialect", "kiro", "--json", "--since", "2026-05-28", "--root", str(root))
    assert after.returncode == 1 and json.loads(after.stdout) == []
    assert "asz search: no conversation matched --dialect kiro --since 2026-05-28 (of 2 in" in after.stderr


def test_a_window_cutting_a_conversation_names_the_timeless_hits_it_left_out(root: Path) -> None:
    hits, err = _window(root, "--since", "2026-05-27T18:15:10Z", "--until", "2026-05-27")
    assert hits == []  # the prompt (18:15:03) is before the window; the 13 may be in it or not
    assert ("asz search: note: 13 hit(s) with no time of their own left out by --since/--until: their conversation's "
            "recorded range is not inside the window, so they may lie in it or not: 8e247382 (13)") in err
    hits, err = _window(root, "--until", "2026-05-27T18:15:10Z")  # an --until alone kept them all before
    assert [h["at"] for h in hits if h["conversation"] == V2_SESSION] == [1779905703000] and "8e247382 (13)" in err


def _prose_in_range(root: Path, *args: str) -> tuple[list, str]:
    p = asz_in_process("export", "--format", "prose", *args, "--root", str(root))
    assert p.returncode == 0, p.stderr
    return [(d.get("kind"), d["in_range"]) for d in map(json.loads, p.stdout.splitlines()) if d.get("kind") != "conversation"], p.stderr


def test_the_prose_places_a_line_with_no_time_at_its_turn_s_end_as_usage_does(root: Path, corpus_dir: Path) -> None:
    """F25, kiro22b: in a day's window, 8e247382's 7 lines with no time of their own (tool calls, the reply) are in it.
    Each is placed at its turn's recorded end (the session document's ``end_timestamp``, 18:15:27.45), as ``asz
    usage`` places its call, so a window that cuts the conversation's range (18:15:03 to 18:15:27.45) after the prompt
    still places them: in it when it holds the end, out of it when it does not. The default prose decides the same."""
    doc = corpus_dir / "kiro" / "home" / ".kiro" / "sessions" / "cli" / f"{V2_SESSION}.json"
    (turn,) = json.loads(doc.read_text())["session_state"]["conversation_metadata"]["user_turn_metadatas"]
    assert turn["end_timestamp"] == "2026-05-27T18:15:27.451690Z"
    day = ("--since", "2026-05-27", "--until", "2026-05-27")
    lines, err = _prose_in_range(root, "--audit", *day)
    assert lines == [("prompt", True)] + [("tool_call", True)] * 6 + [("reply", True)] and "no time" not in err
    for until, inside in (("2026-05-27", True), ("2026-05-27T18:15:27.400Z", False)):
        window = ("--since", "2026-05-27T18:15:10Z", "--until", until)
        lines, err = _prose_in_range(root, "--audit", *window)
        assert lines == [("prompt", False)] + [("tool_call", inside)] * 6 + [("reply", inside)] and "no time" not in err
        lines, _ = _prose_in_range(root, *window)  # the default prose: the prompt and the reply
        assert lines == [(None, False), (None, inside)]
    lines, _ = _prose_in_range(root, *day)
    assert lines == [(None, True), (None, True)]


def test_a_talk_whose_last_steps_carry_no_time_has_no_length(root: Path) -> None:
    """F22: Kiro CLI 2.x writes a time on the prompt only, so 8e247382's talk runs from 18:15:03 to an end no record
    of the talk gives: 20 of its 21 steps come after the last timed one, and the page reads no length, not 0 ms."""
    (talk,) = json.loads(_run("conversation", V2_SESSION, "--json", "--root", str(root))[0])["talks"]
    assert (talk["from"], talk["to"], talk["steps"], talk["untimed_end"]) == (1779905703000, 1779905703000, 21, 20)
    (talk,) = json.loads(_run("conversation", V3_SESSION, "--json", "--root", str(root))[0])["talks"]
    assert "untimed_end" not in talk and talk["to"] - talk["from"] == 51503  # 20:35:47.332 to 20:36:38.835


def test_the_audit_header_keeps_kiros_credits_apart(root: Path) -> None:
    """Trial 22a, F4: each Kiro session's audit header carries its calls and the credits Kiro metered, in their own
    key, never tokens or USD, as ``asz usage session`` counts them (both sessions meter credits and no tokens)."""
    rows = {r["conversation"]: r for r in json.loads(_run("usage", "session", "--json", "--root", str(root))[0])}
    for session in (V2_SESSION, V3_SESSION):
        head = json.loads(_run("export", session, "--audit", "--root", str(root))[0].splitlines()[0])
        row = rows[head["conversation"]]
        assert head["credits"] == row["credits"] and head["credits"] > 0 and head["calls"] == row["calls"] > 0
        assert head["cost"] == row["cost"] and head["cost"]["usd"] is None and not any(head["tokens"].values())


def test_a_kiro_2x_create_reads_as_kiro_recorded_it(root: Path, corpus_dir: Path) -> None:
    """Trial 23a, F18: each 2.x ``FileWrite`` Kiro recorded as ``create`` (answered ``Successfully created …``) is a
    change of operation ``create``, not ``modify``; whether a file was there before is not recorded (``present`` null),
    and its after side is the content Kiro wrote. Expected values read from the source file."""
    path = corpus_dir / "kiro" / "home" / ".kiro" / "sessions" / "cli" / f"{V2_SESSION}.jsonl"
    writes = []
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if d["kind"] != "ToolResults":
            continue
        for tool_id, r in d["data"]["results"].items():
            fw = r["tool"]["kind"].get("BuiltIn", {}).get("FileWrite")
            if fw and "Success" in r["result"]:
                text = r["result"]["Success"]["items"][0]["Text"]
                writes.append((f"tool/{tool_id}", fw["path"], fw["command"], len(fw["content"].encode()), text))
    assert [w[2] for w in writes] == ["create", "create"] and all(w[4].startswith("Successfully created ") for w in writes)
    doc = json.loads(_run("conversation", V2_SESSION, "--json", "--root", str(root))[0])
    got = [(c["step"], f["path"], f["operation"], f["after"]["bytes"], f["before"]) for c in doc["workspace_changes"]
           for f in c["changes"]]
    assert got == [(s, p, cmd, n, {"present": None, "bytes": None}) for s, p, cmd, n, _ in writes]
