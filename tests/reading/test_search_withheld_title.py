"""A title that comes from a withheld record is not shown while its flag is withheld, when the title's text is no
longer the record's (session 21's note: "search's withheld-title check runs on the masked text").

Search looked for the title it stores (masked, cut to 100 characters, its whitespace made single spaces) in the
landed lines naming a withheld flag: a title whose text differs from what the record holds was never found there,
so it was shown while its record was withheld. Two ways now:

* a runtime title written from the withheld text with its line breaks made spaces (LangSmith's first question of a
  ``@traceable`` function, whose record is flagged ``system_prompt``) is looked for with every run of whitespace made
  one space (``title_withheld``): ``asz ls`` and ``asz search`` both showed it before;
* a title taken from a prompt is withheld by the flags of the prompt's own record (``PromptTitle.chosen``), not by
  looking for its masked and cut text.

The LangSmith runs are written into the receiver's inbox in the shapes the LangSmith API posts (as
tests/langchain/test_langchain_collect.py does); the prompts offered are the shared corpus's first prompts.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import source_lines

from asz_core.view.titles import PromptTitle

QUESTION = "what is unicode\nand why do zebrafish names break"
DEEP = "a7da6a22-facc-4fcd-8bab-f83c87862004"
TITLE = "what is unicode and why do zebrafish names break"  # the label LangSmith's question gives (one space each)


def _runs(root: Path) -> None:
    """A ``@traceable`` function asked QUESTION (its records flagged ``external_input`` and ``system_prompt``), then a
    LangGraph run of the same thread asked about zebrafish (``external_input`` alone: searchable while withheld)."""
    inbox = root / "_ingest" / "langsmith" / "inbox"
    inbox.mkdir(parents=True)
    traced = {"metadata": {"thread_id": "th", "ls_method": "traceable"}, "runtime": {"library": "langsmith"}}
    f1 = {"id": "f1", "trace_id": "f1", "session_name": "p", "run_type": "chain", "name": "f", "extra": traced,
          "start_time": "2026-10-01T10:00:00.000001+00:00", "dotted_order": "20261001T100000000001Zf1", "inputs": {"q": QUESTION}}
    f1_end = {"id": "f1", "trace_id": "f1", "dotted_order": f1["dotted_order"], "end_time": "2026-10-01T10:00:01.000001+00:00",
              "outputs": {"output": "answer to what is unicode"}}
    g1 = {"id": "g1", "trace_id": "g1", "session_name": "p", "run_type": "chain", "name": "LangGraph",
          "extra": {"metadata": {"thread_id": "th"}, "runtime": {"library": "langchain-core"}},
          "start_time": "2026-10-01T10:05:00.000001+00:00", "dotted_order": "20261001T100500000001Zg1",
          "inputs": {"messages": [{"type": "human", "content": "tell me more about zebrafish"}]}}
    g1_end = {"id": "g1", "trace_id": "g1", "dotted_order": g1["dotted_order"], "end_time": "2026-10-01T10:05:01.000001+00:00",
              "outputs": {"messages": [{"type": "ai", "content": "zebrafish are small"}]}}
    ops = [("post", f1), ("patch", f1_end), ("post", g1), ("patch", g1_end)]
    (inbox / "001.jsonl").write_bytes(b"".join(json.dumps({"op": op, "id": r["id"], "run": r}).encode() + b"\n" for op, r in ops))


@pytest.fixture(scope="module")
def traced_root(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("withheld-title")
    root = base / "root"
    _runs(root)
    p = asz_in_process("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    cfg = base / "hide.yaml"
    cfg.write_text('view:\n  hide: ["system_prompt"]\n')
    return root, cfg


def _titles(root: Path, *more: str) -> tuple[list[tuple[str, str]], list[str]]:
    hits = json.loads(asz_in_process("search", "zebrafish", "--json", "--root", str(root), *more).stdout)
    rows = json.loads(asz_in_process("ls", "--json", "--root", str(root), *more).stdout)
    return [(h["kind"], h["title"]) for h in hits], [r["title"] for r in rows]


def test_the_label_of_a_withheld_question_is_not_shown_while_it_is_withheld(traced_root):
    root, cfg = traced_root
    landed = b"".join(p.read_bytes() for p in root.rglob("*.sd"))
    assert json.dumps(TITLE).encode() in landed and json.dumps(QUESTION).encode() in landed  # the label and the question
    # nothing withheld: both hits, titled, and the run's label (its question: a hit of kind label, trial 32b F4)
    hits, rows = _titles(root)  # in any order: equal scores come newest first since e12933f6 (test_search_ties_newest)
    assert (sorted(hits), rows) == ([("label", TITLE), ("prompt", TITLE), ("prompt", TITLE)], [TITLE])
    assert _titles(root, "--config", str(cfg)) == ([("prompt", "")], [""])  # the question withheld, its label too


def test_a_prompt_title_names_the_prompt_it_came_from(corpus_source):
    """``chosen``: the place of the prompt that titles, in the order offered: the first naming work, else the first.
    The prompts are the -src-deep-manifest session's (a7da6a22): /context, /model, then the work."""
    prompts = [d["message"]["content"] for d in source_lines(corpus_source / "-src-deep-manifest" / f"{DEEP}.jsonl")
               if d.get("type") == "user" and isinstance(d["message"].get("content"), str)]
    context, model, work = prompts[1], prompts[4], prompts[6]
    assert context.startswith("<command-name>/context</command-name>") and model.startswith("<command-name>/model</command-name>")
    pick = PromptTitle("claude-code/1")
    assert pick.chosen() == -1
    assert [pick.offer(t) for t in (context, model, work)] == [False, False, True]
    assert pick.chosen() == 2 and pick.title().startswith("It's been a while - I see that I have pending changes")
    only = PromptTitle("claude-code/1")
    assert [only.offer(t) for t in (context, model)] == [False, False] and (only.chosen(), only.title()) == (0, "/context")


def test_every_whitespace_a_label_makes_one_space_is_looked_for():
    """LangSmith's label joins the question's words by ``str.split`` (``title_of``): each of the 29 characters Python
    takes for whitespace, in a withheld record as the writer escapes it, still withholds the label; a title that is
    not the record's text does not."""
    import orjson

    from asz_core.view.session_records import title_withheld

    spaces = [c for c in map(chr, range(0x110000)) if c.isspace()]
    assert len(spaces) == 29
    for c in spaces:
        text = f"what is{c}{c}unicode\n"
        line = orjson.dumps({"flags": ["external_input", "system_prompt"], "parts": [{"k": "text", "text": text}]})
        assert title_withheld([line], " ".join(text.split()), ["system_prompt"]), repr(c)
        assert not title_withheld([line], "what is unicodes", ["system_prompt"]), repr(c)
        assert not title_withheld([line], " ".join(text.split()), ["tool_schemas"]), repr(c)
