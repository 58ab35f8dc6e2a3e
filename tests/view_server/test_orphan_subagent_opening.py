"""An orphan sub-agent whose opening prompt landed is headed ``Subagent: <that prompt>`` by every reader, and
``asz conversation`` names each costliest talk as md, html and the page head it (fix46c items 3 and 4).

Real input: the corpus's 5c0375b4 (Claude Code 1.0.108, which wrote its sub-agents' lines into the parent's file),
its second sub-agent made an orphan as field report 34 describes: the ``Task`` call that started it and that call's
result left out, and its opening prompt naming as parent a record that never landed. Its lines are then a group no
call and no prompt of the parent opened (the document's talk ``orphan``), and the group's first line is the prompt
the sub-agent was given: :func:`~asz_core.view.subagent_heads.subagent_heading`'s ``Subagent: <opening line>``
branch, which no test drove (trial 45b F4's shapes all open with a reply). Expected values are read from the source
lines here; the costliest talks' names are held to the md export's headings, the names they must equal."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

SOURCE = "-home-user-sample-project/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
OLD = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
SID = "5c0375b4-0000-4000-8000-0000000046c3"
GONE = "f1e1d000-46c3-4000-8000-00000000dead"  # no line carries it


def _asz(*args: str) -> str:
    p = asz_in_process(*args)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@pytest.fixture(scope="module")
def made(corpus_projects: Path, tmp_path_factory) -> dict:
    lines = [json.loads(x) for x in (corpus_projects / SOURCE).read_text(encoding="utf-8").splitlines()]
    prompts = [d for d in lines if d.get("isSidechain") and d["type"] == "user" and d["parentUuid"] is None]
    prompt = prompts[1]  # the second sub-agent's opening prompt
    (task,) = [b for d in lines if d["type"] == "assistant" for b in d["message"]["content"]
               if b.get("type") == "tool_use" and b.get("name") == "Task" and b["input"].get("prompt") == prompt["message"]["content"]]
    dropped = {id(d) for d in lines if d["type"] == "assistant" and task in d["message"]["content"] or d["type"] == "user"
               and any(isinstance(b, dict) and b.get("tool_use_id") == task["id"] for b in d["message"]["content"])}
    assert len(dropped) == 2  # the Task call's line and its result's
    kept = [d for d in lines if id(d) not in dropped]
    prompt["parentUuid"] = GONE
    group, ids = [], {prompt["uuid"]}  # the sub-agent's lines: the prompt and the sidechain lines under it
    for row, d in enumerate(kept, 1):
        if d["uuid"] in ids or d.get("isSidechain") and d["parentUuid"] in ids:
            ids.add(d["uuid"])
            group.append(row)
    base = tmp_path_factory.mktemp("orphan_opening")
    out = base / "projects" / "-home-user-sample-project" / f"{SID}.jsonl"
    out.parent.mkdir(parents=True)
    out.write_text("".join(json.dumps(d, ensure_ascii=False).replace(OLD, SID) + "\n" for d in kept), encoding="utf-8")
    _asz("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    return {"root": base / "root", "prompt": prompt["message"]["content"], "rows": group}


def _walk(n: dict):
    yield n
    for c in n.get("children") or ():
        yield from _walk(c)


def test_the_group_is_headed_by_its_opening_prompt_in_every_reader(made):
    root, prompt = str(made["root"]), made["prompt"]
    doc = json.loads(_asz("conversation", SID, "--json", "--root", root))
    (group,) = [t for t in doc["talks"] if t.get("orphan")]
    assert sorted({r["row"] for n in _walk(group) for r in [n.get("ref"), *(n.get("refs") or ())] if r}) == made["rows"]
    n = [t["id"] for t in doc["talks"]].index(group["id"]) + 1
    md = _asz("export", SID, "--format", "md", "--root", root)
    (head,) = [x[len(f"## Talk {n}: "):] for x in md.splitlines() if x.startswith(f"## Talk {n}: ")]
    words = prompt.split()
    assert head.startswith("Subagent: ") and head.endswith("…") and len(head) <= 80  # cut at a word's end
    assert head[len("Subagent: "):-1].split() == words[:len(head[len("Subagent: "):-1].split())]
    part = md.split(f"\n## Talk {n}: ")[1].split("\n## ")[0]
    assert " · parent call not found\n" in part and part.count("**Asked (the prompt this talk was given)**") == 1
    assert f"\n{prompt}\n" in part  # drawn whole under Asked
    html = _asz("export", SID, "--format", "html", "--root", root)
    assert html.count(f"Talk {n}: <bdi>{escape(head)}</bdi>") == 2  # the Talks list and the talk's h2

    from starlette.testclient import TestClient

    from asz_core.view.server import ViewState, create_app

    page = TestClient(create_app(ViewState(made["root"])), base_url="http://127.0.0.1").get(f"/api/c/{SID}/headings").json()
    assert page["headings"][group["id"]] == "Subagent: " + " ".join(words)  # the page lays it out whole


def test_asz_conversation_names_each_costliest_talk_as_md_heads_it(made):
    root = str(made["root"])
    md = _asz("export", SID, "--format", "md", "--root", root)
    heads = [x.split(": ", 1)[1] for x in md.splitlines() if x.startswith("## Talk ")]
    said = _asz("conversation", SID, "--root", root).splitlines()
    at = next(i for i, x in enumerate(said) if x.startswith("costliest talks: "))
    assert said[at].startswith(f"costliest talks: {len(heads)} of {len(heads)},")
    names = sorted(x.split(" UTC: ", 1)[1] for x in said[at + 1:at + 1 + len(heads)])
    assert names == sorted(h if len(h) <= 60 else h[:59] + "…" for h in heads)
    assert any(x.startswith("Subagent: Analyze the current project") for x in names)  # the orphan group
    assert any(x.startswith("/orchestrator ") for x in names)  # its command read as typed, as md heads it, not its markup
