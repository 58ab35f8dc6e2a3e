"""Materialisation: waiting ancestry, patch completion, the write-ahead journal, flags and trimming."""

from __future__ import annotations

import orjson

from asz_adapters_langchain import inbox
from asz_adapters_langchain.dialect import content_flags, convert_line
from asz_adapters_langchain.inbox import materialise, rfc3339


def _stage(ingest, name: str, arrivals: list[dict]) -> None:
    d = ingest / "inbox"
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(b"".join(orjson.dumps(a) + b"\n" for a in arrivals))


def _run(rid: str, parent: str = "", **kw) -> dict:
    r = {"id": rid, "trace_id": "t1", "session_name": "p", "run_type": "chain", "name": rid,
         "start_time": "2026-10-01T10:00:00.000001+00:00", "extra": {"metadata": {"thread_id": "th"}}}
    if parent:
        r["parent_run_id"] = parent
    r.update(kw)
    return r


def _lines(ingest) -> list[dict]:
    out = []
    for f in sorted((ingest / "sessions").glob("*/*.jsonl")):
        out += [orjson.loads(x) for x in f.read_bytes().splitlines()]
    return out


def test_a_child_waits_for_its_parent_then_lands(tmp_path):
    """A post whose parent has not arrived waits; when the parent comes on a later pass both land, parent first."""
    ingest = tmp_path / "_ingest" / "langsmith"
    _stage(ingest, "001.jsonl", [{"op": "post", "id": "c", "run": _run("c", "r", run_type="llm")}])
    materialise(ingest)
    assert _lines(ingest) == []
    _stage(ingest, "002.jsonl", [{"op": "post", "id": "r", "run": _run("r", inputs={"messages": [{"role": "user", "content": "hi"}]})}])
    materialise(ingest)
    ids = [x["asz"].get("id") for x in _lines(ingest)]
    assert ids == [None, "r", "c"]  # the title, the root, then the child


def test_an_orphan_lands_after_the_waiting_passes(tmp_path):
    """A post whose parent never arrives is landed with what is known after WAIT_PASSES more passes."""
    ingest = tmp_path / "_ingest" / "langsmith"
    _stage(ingest, "001.jsonl", [{"op": "post", "id": "c", "run": _run("c", "nobody", run_type="llm")}])
    for _ in range(inbox.WAIT_PASSES):
        materialise(ingest)
        assert _lines(ingest) == []
    materialise(ingest)
    assert [x["asz"].get("id") for x in _lines(ingest)][-1] == "c"


def test_a_patch_completes_a_remembered_run(tmp_path):
    """An open post, then its patch: two records; only the patch carries the end; it knows the run's session and model."""
    ingest = tmp_path / "_ingest" / "langsmith"
    llm = _run("m", "r", run_type="llm", extra={"metadata": {"thread_id": "th", "ls_model_name": "mod"}})
    _stage(ingest, "001.jsonl", [{"op": "post", "id": "r", "run": _run("r")}, {"op": "post", "id": "m", "run": llm}])
    materialise(ingest)
    _stage(ingest, "002.jsonl", [{"op": "patch", "id": "m", "run": {"id": "m", "end_time": 1728803138285,
                                                                     "outputs": {"generations": [[{"text": "ok"}]]}}}])
    materialise(ingest)
    lines = _lines(ingest)
    post, patch = [x for x in lines if x["asz"].get("call") == "m"]
    assert (post["asz"]["end"], patch["asz"]["end"]) == (False, True)
    assert patch["asz"]["id"] == "m:patch:1" and patch["asz"]["model"] == "mod"
    rec = convert_line(None, orjson.dumps(patch), 1, 0)
    assert [p.text for p in rec.parts] == ["ok"] and rec.time == rfc3339(1728803138285)


def test_a_committed_journal_is_applied_once(tmp_path, monkeypatch):
    """A pass that crashed after committing its journal is finished by the next one, and nothing lands twice."""
    ingest = tmp_path / "_ingest" / "langsmith"
    _stage(ingest, "001.jsonl", [{"op": "post", "id": "r", "run": _run("r")}])
    real = inbox._apply_journal
    calls = []

    def crash(*a, **k):
        calls.append(1)
        raise OSError("crash after the commit")

    monkeypatch.setattr(inbox, "_apply_journal", crash)
    try:
        materialise(ingest)
    except OSError:
        pass
    assert calls and not (ingest / "sessions").exists()
    monkeypatch.setattr(inbox, "_apply_journal", real)
    materialise(ingest)
    materialise(ingest)
    assert [x["asz"].get("id") for x in _lines(ingest)] == [None, "r"]
    assert not list((ingest / "inbox").iterdir()) and (ingest / "done" / "001.jsonl").is_file()


def test_graph_runs_are_trimmed_and_flags_follow_the_key_rules():
    """A graph chain run keeps its envelope and its metadata whole (the app's keys too: trial 28c F4); content goes to
    dropped with its size."""
    run = _run("g", "r", inputs={"messages": ["x" * 100]}, outputs={"messages": []},
               extra={"metadata": {"thread_id": "th", "langgraph_node": "agent", "ls_x": 1, "other": 2}})
    line = orjson.dumps({"asz": {"id": "g", "run": "t1", "kind": "graph", "end": False}, "op": "post", "run": run})
    rec = convert_line(None, line, 1, 0)
    env = rec.parts[0].data
    assert env["metadata"] == {"thread_id": "th", "langgraph_node": "agent", "ls_x": 1, "other": 2} and "inputs" not in env
    assert {d.what for d in rec.dropped} >= {"inputs", "outputs", "extra"} and not rec.flags
    assert content_flags({"messages": [{"role": "system", "content": "s"}]}) == ["system_prompt"]
    assert content_flags({"System-Prompt": "s", "available_tools": [{"name": "t"}]}) == ["system_prompt", "tool_schemas"]
    assert content_flags({"messages": [{"role": "user", "content": "tools"}]}) == []


def test_provider_bodies_follow_the_setting(tmp_path):
    """An llm run's inputs and outputs go to the body source (meta line for line); provider_bodies: false lands none."""
    llm = _run("m", "r", run_type="llm", inputs={"messages": [[{"role": "system", "content": "s"}]]}, end_time=1,
               outputs={"generations": [[{"text": "ok"}]]})
    for on in (True, False):
        ingest = tmp_path / str(on) / "_ingest" / "langsmith"
        _stage(ingest, "001.jsonl", [{"op": "post", "id": "r", "run": _run("r")}, {"op": "post", "id": "m", "run": llm}])
        found = materialise(ingest, inbox.Settings(provider_bodies=on))
        bodies = [f for _s, kind, _st, f in found if kind == "provider_body"]
        if not on:
            assert not bodies
            continue
        (path,) = bodies
        assert [orjson.loads(x) for x in path.read_bytes().splitlines()] == [llm["inputs"], llm["outputs"]]
        metas = [orjson.loads(x) for x in path.with_name("provider_body.meta.jsonl").read_bytes().splitlines()]
        assert [(m["id"], m["role"], m["call"]) for m in metas] == [("m:request", "request", "m"), ("m:response", "response", "m")]


def test_bodies_share_what_the_session_holds_across_passes(tmp_path):
    """A second request repeating a long history is cut against the first (a copy or pieces), also when a new
    process resumes (the cutter is rebuilt by cutting the landed lines again), and every body rebuilds."""
    from asz_core.testing import collect_once
    from asz_core.verify.walk import verify_root
    from asz_adapters_langchain import bodies
    from asz_adapters_langchain.plugin import LangsmithIngest
    from asz_core import SDReader

    src = tmp_path / "src"
    ingest = src / "_ingest" / "langsmith"
    history = [{"role": "system", "content": "rules " * 1500}]
    root = tmp_path / "root"
    for n in range(3):
        history = history + [{"role": "user", "content": f"question {n} " + "x" * 2000}]
        llm = _run(f"m{n}", "r", run_type="llm", inputs={"messages": [history]}, end_time=2,
                   outputs={"generations": [[{"text": f"answer {n}"}]]})
        posts = [{"op": "post", "id": "r", "run": _run("r")}] if n == 0 else []
        _stage(ingest, f"{n:03d}.jsonl", posts + [{"op": "post", "id": f"m{n}", "run": llm}])
        bodies._CUTTERS.clear()  # as a new process would
        collect_once(root, LangsmithIngest(inbox.Settings()), src)
    report = verify_root(root)
    assert report.ok, "\n".join(report.lines())
    segs = []
    for f in sorted((next(root.glob("ls-*")) / "provider_body").glob("*.sd")):
        for _row, rec in SDReader(f):
            segs += [list(seg)[0] for seg in rec.parts[-1].data_value()["segments"]]
    assert "copy" in segs or "piece" in segs, segs


def test_odd_runs_never_break_a_pass(tmp_path):
    """Runs with fields of the wrong type, missing or odd values: materialisation and conversion never raise."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from asz_core import Source

    scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=8))
    values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                          st.dictionaries(st.text(max_size=6), inner, max_size=3)), max_leaves=8)
    keys = st.sampled_from(["parent_run_id", "trace_id", "run_type", "inputs", "outputs", "extra", "error", "end_time",
                            "start_time", "dotted_order", "session_name", "name", "events"])
    runs = st.dictionaries(keys, values, max_size=8)
    counter = iter(range(10**9))

    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(st.tuples(st.sampled_from(["post", "patch"]), st.sampled_from(["a", "b", "c"]), runs), min_size=1, max_size=6))
    def check(arrivals):
        ingest = tmp_path / f"case{next(counter)}" / "_ingest" / "langsmith"
        _stage(ingest, "001.jsonl", [{"op": op, "id": rid, "run": {**run, "id": rid}} for op, rid, run in arrivals])
        for _ in range(inbox.WAIT_PASSES + 1):
            found = materialise(ingest)
        for session, kind, stream, path in found:
            src = Source(session=session, kind=kind, path=path, src="x", dialect="langsmith/1", stream=stream)
            for n, line in enumerate(path.read_bytes().splitlines(), 1):
                rec = (convert_line if kind == "transcript" else dialect.convert_body)(src, line, n, 0)
                assert rec.ord == n

    from asz_adapters_langchain import dialect

    check()


def test_finished_traces_are_forgotten_after_a_day(tmp_path):
    """A trace whose runs all ended leaves the state a day after its last arrival; an open one stays."""
    ingest = tmp_path / "_ingest" / "langsmith"
    old, new = "2026-10-01T10:00:00.000000000Z", "2026-10-02T10:00:01.000000000Z"
    done_run = _run("d", end_time="2026-10-01T10:00:00+00:00", trace_id="t-done")
    open_run = _run("o", trace_id="t-open")
    _stage(ingest, "001.jsonl", [{"op": "post", "id": "d", "run": done_run, "received": old},
                                 {"op": "post", "id": "o", "run": open_run, "received": old}])
    materialise(ingest)
    st = orjson.loads((ingest / "state.json").read_bytes())
    assert set(st["runs"]) == {"d", "o"}
    _stage(ingest, "002.jsonl", [{"op": "post", "id": "n", "run": _run("n", trace_id="t-new"), "received": new}])
    materialise(ingest)
    st = orjson.loads((ingest / "state.json").read_bytes())
    assert set(st["runs"]) == {"o", "n"} and "t-done" not in st["seen"]


def test_a_waiting_run_is_pending_for_collect(tmp_path):
    """While a post waits for its parent, asz collect --once counts it pending and exits 1; once it lands, 0 (second fresh-user report)."""
    import sys

    import forked

    root = tmp_path / "root"
    ingest = root / "_ingest" / "langsmith"
    _stage(ingest, "001.jsonl", [{"op": "post", "id": "c", "run": _run("c", "nobody", run_type="llm")}])
    cmd = [sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--no-parse", "--adapter", "langsmith-ingest",
           "--root", str(root), "--source", str(root)]
    for _ in range(inbox.WAIT_PASSES):
        p = forked.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert p.returncode == 1 and " pending=1 " in p.stdout, p.stdout + p.stderr
    p = forked.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 0 and " pending=0 " in p.stdout and " landed=1 " in p.stdout, p.stdout + p.stderr


def test_a_decorated_functions_return_value_lands_as_its_answer(tmp_path):
    """@traceable f(q) -> answer: the end of the root lands the answer (from agent, its text, the value whole), never dropped
    (second fresh-user report), even when the patch does not repeat the decorator's metadata."""
    ingest = tmp_path / "_ingest" / "langsmith"
    traced = {"metadata": {"thread_id": "th", "ls_method": "traceable"}, "runtime": {"library": "langsmith"}}
    _stage(ingest, "001.jsonl", [
        {"op": "post", "id": "f", "run": _run("f", inputs={"q": "what is unicode"}, extra=traced)},
        {"op": "patch", "id": "f", "run": {"id": "f", "trace_id": "t1", "end_time": "2026-10-01T10:00:01.000001+00:00",
                                           "outputs": {"output": "answer to what is unicode"}}},
    ])
    materialise(ingest)
    lines = _lines(ingest)
    patch = next(x for x in lines if x.get("op") == "patch")
    rec = convert_line(None, orjson.dumps(patch), 3, 0)
    assert rec.from_ == "agent" and rec.flags == ["system_prompt"]
    assert rec.parts[0].k == "text" and rec.parts[0].text == "answer to what is unicode"
    assert rec.parts[1].data == {"output": "answer to what is unicode"}
    assert not any(x.what == "outputs" for x in rec.dropped)


def test_links_that_lead_nowhere_are_skipped_once_not_errors(tmp_path):
    """A broken link or a loop in the inbox or among the staged sessions is skipped with why, not an error;
    a session's own stream file that is such a link is an error (issue 23); the real session is found whole."""
    import os

    from asz_adapters_langchain.plugin import LangsmithIngest

    ingest = tmp_path / "_ingest" / "langsmith"
    _stage(ingest, "001.jsonl", [{"op": "post", "id": "r", "run": _run("r", inputs={"messages": [{"role": "user", "content": "hi"}]})}])
    os.symlink("missing.jsonl", ingest / "inbox" / "002.jsonl")
    os.symlink("loop", ingest / "inbox" / "loop")
    materialise(ingest)
    sessions = ingest / "sessions"
    (real,) = [p.name for p in sessions.iterdir()]
    os.symlink("gone", sessions / "ls-gone-000000000000")
    os.symlink("nothere.jsonl", sessions / real / "helper.jsonl")  # a stream file of the session
    os.symlink("nothere", sessions / real / "notes")
    d = LangsmithIngest().discover(tmp_path)
    assert [(s.session, s.kind, s.stream) for s in d.sources] == [(real, "transcript", "main")]
    shown = sorted((os.path.relpath(p, ingest), r) for p, r in d.skipped)
    assert shown == [
        ("inbox/002.jsonl", "a symbolic link to missing.jsonl, which leads nowhere"),
        ("inbox/loop", "a symbolic link to loop, which leads nowhere"),
        ("sessions/ls-gone-000000000000", "a symbolic link to gone, which leads nowhere"),
        (f"sessions/{real}/notes", "a symbolic link to nothere, which leads nowhere"),
    ]
    assert [(os.path.relpath(p, ingest), m) for p, m in d.errors] == [
        (f"sessions/{real}/helper.jsonl", "the session file is a symbolic link to nothere.jsonl, which leads nowhere")]
