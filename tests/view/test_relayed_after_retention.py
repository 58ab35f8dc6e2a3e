"""A sub-agent's calls seen only in its parent's ``progress`` records read the same after ``asz prune`` (fix50i; found
by fix50c at c73dac6e: the skeleton kept nothing of those records, so after the prune the 12 relayed haiku calls, their
tokens and 19 tool calls went from every figure, ``asz ls`` lost the haiku model, and a copy exported before the prune
no longer verified: 11 problems). A skeleton keeps of each such record what the relayed-calls rule reads (the Claude
adapter's ``metered_data``: ids, model, usage, the copied tool calls' ids and names, their results' ``is_error``, and the
size of each input and result that went), never their text.

Real input: the corpus's 8463c716, collected without its ``subagents/`` folder (the copies the only record of the
sub-agent's calls) and with it; each figure (``asz ls --json``, ``asz usage session/model/tools --json``, ``asz
conversation --json``'s summary) before the prune equals the one after, the relayed ones equal the counts made here from
the JSONL lines (:mod:`test_relayed_calls`, :mod:`test_relayed_tools_counted`), and a copy exported before the prune
(text, md, html, json) checks against the pruned root but for what retention removed."""

from __future__ import annotations

import gzip
import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from cli_helpers import asz_in_process, asz_ok
from test_relayed_calls import PROJECT, SID, copies
from test_relayed_tools_counted import relayed_tools
from test_view_usage import transcript_calls

CHECKS = "the copy checks against the root but for what retention removed (not checkable, above)"
FORMS = {"text": ["--format", "text"], "md": ["--format", "md"], "html": ["--format", "html"], "json": ["--format", "json"]}
#: What the text took with it: a title, project, branch and runtime version read from the records' text and cwd.
_FROM_TEXT = ("title", "project", "git_branch", "runtime", "removed_files", "project_label")


def _figures(root: Path) -> dict:
    """Every figure a reader gives of the root: ``asz ls --json`` (without what the text gave), ``asz usage
    session/model/tools --json`` (without the title and project), the conversation's summary figures."""
    ls = [{k: v for k, v in row.items() if k not in _FROM_TEXT}
          for row in json.loads(asz_ok("ls", "--json", "--root", str(root)))]
    usage = {k: json.loads(asz_ok("usage", k, "--json", "--root", str(root))) for k in ("session", "model", "tools")}
    for row in usage["session"] if isinstance(usage["session"], list) else ():
        for k in ("title", "project"):
            row.pop(k, None)
    s = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", str(root)))["summary"]
    keep = ("llm_calls", "models", "usage", "cost", "calls_by_tool", "kinds", "calls_failed")
    return {"ls": ls, "usage": usage, "summary": {k: s.get(k) for k in keep},
            "relayed": [p for p in s.get("problems") or () if p.startswith("calls seen only in progress records")]}


def _pruned(source_main: Path, base: Path, whole: bool) -> dict:
    """8463c716 collected (with its ``subagents/`` folder when ``whole``), exported in each form, its figures read,
    pruned (retention ``after: 0``), its figures read again: ``{"before", "after", "root", "copies"}``."""
    (base / "projects" / PROJECT).mkdir(parents=True)
    shutil.copyfile(source_main, base / "projects" / PROJECT / source_main.name)
    if whole:
        shutil.copytree(source_main.parent / SID, base / "projects" / PROJECT / SID)
    root = base / "root"
    asz_ok("collect", "--once", "--adapter", "claude-code-local", "--source", str(base / "projects"), "--root", str(root))
    out = {"root": root, "copies": {}}
    for form, args in FORMS.items():
        out["copies"][form] = base / f"c.{form}"
        asz_ok("export", SID[:8], *args, "--out", str(out["copies"][form]), "--root", str(root))
    out["before"] = _figures(root)
    (base / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    asz_ok("prune", "--root", str(root), "--config", str(base / "asz.yaml"))
    assert not list(root.glob(f"{SID}/**/*.sd")) and list(root.glob(f"{SID}/streams/*/*.sk"))
    out["after"] = _figures(root)
    return out


@pytest.fixture(scope="module")
def main_file(corpus_projects: Path) -> Path:
    main = corpus_projects / PROJECT / f"{SID}.jsonl"
    if not main.is_file() or not (main.parent / SID / "subagents").is_dir():
        pytest.skip(f"{main} or its subagents/ folder is absent")
    return main


@pytest.fixture(scope="module")
def alone(main_file, tmp_path_factory) -> dict:
    return _pruned(main_file, tmp_path_factory.mktemp("relayed-pruned"), whole=False)


@pytest.fixture(scope="module")
def whole(main_file, tmp_path_factory) -> dict:
    return _pruned(main_file, tmp_path_factory.mktemp("relayed-pruned-whole"), whole=True)


@pytest.mark.slow
def test_every_figure_of_the_relayed_calls_reads_the_same_after_the_prune(alone, main_file):
    assert alone["after"] == alone["before"]
    got = copies(main_file)  # (message id, request id) -> (agent, model, usage, …), from the JSONL
    (model,) = {m for _a, m, *_ in got.values()}
    rows = {r["model"]: r for r in alone["after"]["usage"]["model"]}
    sums = Counter()
    for _a, _m, u, *_ in got.values():
        sums.update({k: u[k] for k in ("in", "out", "cache_read", "cache_write")})
    assert rows[model]["calls"] == len(got) == 12
    assert {k: rows[model]["usage"][k] for k in sums} == dict(sums) == {"in": 94, "out": 32, "cache_read": 271377,
                                                                        "cache_write": 12599}
    assert model in alone["after"]["ls"][0]["models"]
    uses, results = relayed_tools(main_file)
    names = Counter(u["name"] for u in uses.values())
    assert names == Counter({"Bash": 11, "Read": 7, "Glob": 1})
    assert len(alone["after"]["relayed"]) == 1 and alone["after"]["relayed"][0].endswith(
        "; and 19 tool call(s) of theirs: Bash 11, Read 7, Glob 1, counted as tool calls under their model calls, "
        "from the copies of each request and its result")
    failed = Counter(uses[t]["name"] for t, r in results.items() if r["is_error"])
    doc = json.loads(asz_ok("conversation", SID[:8], "--json", "--root", str(alone["root"])))
    from doc_walk import dicts_in

    steps = {n["id"]: n for n in dicts_in(doc["talks"]) if n.get("kind") == "tool"}
    for tid, u in uses.items():  # each relayed tool step: its name and failure kept, its texts gone with their sizes
        n, r = steps[f"tool/{tid}"], results[tid]
        assert (n["name"], n.get("failed") is True, n["result_state"]) == (u["name"], r["is_error"], "removed")
        assert n["result_bytes"] == len(r["text"].encode()) and "result" not in n
        assert n["state"] == "removed" and n["bytes"] == len(json.dumps(u["input"], ensure_ascii=False,
                                                                          separators=(",", ":")).encode())
    assert sum(failed.values()) == sum(1 for n in steps.values() if n["id"][5:] in uses and n.get("failed"))


@pytest.mark.slow
@pytest.mark.parametrize("form", list(FORMS))
def test_a_copy_made_before_the_prune_verifies_after_it(alone, form):
    p = asz_in_process("verify", "--export", str(alone["copies"][form]), "--root", str(alone["root"]))
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == CHECKS, p.stdout[-3000:]


@pytest.mark.slow
def test_the_skeleton_keeps_no_text_of_the_copies(alone, main_file):
    uses, results = relayed_tools(main_file)
    lines = [json.loads(x) for p in alone["root"].glob(f"{SID}/streams/*/*.sk")
             for x in gzip.decompress(p.read_bytes()).splitlines()]
    data = [q["data"] for r in lines for q in r.get("parts") or () if isinstance(q.get("data"), dict)
            and q["data"].get("type") == "progress"]  # what the skeleton keeps of the progress records
    assert all(q.get("state") in ("removed", "too_large") for r in lines for q in r.get("parts") or ())
    kept = json.dumps(data, ensure_ascii=False).encode()
    assert len(data) == _copies_kept(main_file) == 38 and {d["data"]["agentId"] for d in data} == {"a7be2f0"}
    for tid, u in uses.items():
        assert tid.encode() in kept
        for v in (u["input"] or {}).values():  # no input value, no result text a copy held
            assert not isinstance(v, str) or len(v) < 8 or v.encode() not in kept, (tid, v)
        text = results[tid]["text"]
        assert len(text) < 8 or text.encode() not in kept, (tid, text[:80])


def _copies_kept(main: Path) -> int:
    """How many ``agent_progress`` records of ``main`` copy a reply (an assistant line with a message id) or tool
    results (a user line holding tool_result blocks): those a skeleton keeps something of (its prompt's copy not)."""
    n = 0
    for line in main.read_bytes().splitlines():
        d = json.loads(line)
        m = (d.get("data") or {}).get("message") if d.get("type") == "progress" and \
            (d.get("data") or {}).get("type") == "agent_progress" else None
        content = (m.get("message") or {}).get("content") if isinstance(m, dict) else None
        n += isinstance(m, dict) and (m.get("type") == "assistant" and bool((m.get("message") or {}).get("id")) or
                                      m.get("type") == "user" and isinstance(content, list) and
                                      any(b.get("type") == "tool_result" for b in content))
    return n


@pytest.mark.slow
def test_with_the_sub_agent_folder_present_it_is_as_before(whole):
    assert whole["after"] == whole["before"] and not whole["after"]["relayed"]
    for form in FORMS:
        p = asz_in_process("verify", "--export", str(whole["copies"][form]), "--root", str(whole["root"]))
        assert p.returncode == 0 and p.stdout.splitlines()[-1] == CHECKS, (form, p.stdout[-3000:])


@pytest.mark.slow
def test_a_skeleton_written_before_reads_as_it_did(main_file, tmp_path, monkeypatch):
    """A skeleton an asz before fix50i wrote keeps nothing of a progress record (its data part ``removed``, its
    ``sha256`` alone: what the Claude adapter's ``metered_data`` keeps now is None, as it was): it reads, and verifies,
    as it did: the relayed calls and their tool calls in no figure (the main thread's 143 calls and 177 tool calls)."""
    import asz_adapters_claude.plugin as claude

    (tmp_path / "projects" / PROJECT).mkdir(parents=True)
    shutil.copyfile(main_file, tmp_path / "projects" / PROJECT / main_file.name)
    root = tmp_path / "root"
    asz_ok("collect", "--once", "--adapter", "claude-code-local", "--source", str(tmp_path / "projects"), "--root", str(root))
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    with monkeypatch.context() as m:
        m.setattr(claude, "relayed_kept", lambda data: None)  # the skeleton an earlier asz wrote
        asz_ok("prune", "--root", str(root), "--config", str(tmp_path / "asz.yaml"))
    lines = [json.loads(x) for p in root.glob(f"{SID}/streams/*/*.sk") for x in gzip.decompress(p.read_bytes()).splitlines()]
    assert not any(isinstance(q.get("data"), dict) and q["data"].get("type") == "progress"
                   for r in lines for q in r.get("parts") or ())
    got = _figures(root)
    uses, _results = relayed_tools(main_file)
    assert got["summary"]["llm_calls"] == len(transcript_calls([main_file])) == 143 and not got["relayed"]
    assert sum(r["calls"] for r in got["summary"]["calls_by_tool"]) == 196 - len(uses) == 177
    p = asz_in_process("verify", "--root", str(root))
    assert p.returncode == 0, p.stdout[-2000:]
