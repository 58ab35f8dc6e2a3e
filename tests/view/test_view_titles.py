"""A title taken from a prompt names what the person asked (issue 20): not the IDE's context blocks, not command markup.

Expected titles are read from the corpus's source transcripts: the typed text
block after the ``<ide_selection>`` block, and the ``<command-name>`` and
``<command-args>`` of a slash command.
"""

from __future__ import annotations

import json
import re
import sys

import forked
from asz_core.view import build_view
from asz_core.view.summary import TITLE_LIMIT


def _first_prompt(path) -> str | list:
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if d.get("type") == "user" and not d.get("isMeta") and not d.get("isSidechain") and "toolUseResult" not in d:
            return d["message"]["content"]
    raise AssertionError(f"{path} has no prompt")


def _cut(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= TITLE_LIMIT else text[: TITLE_LIMIT - 1].rstrip() + "…"


def test_an_ide_prompt_is_titled_by_what_was_typed(corpus):
    projects, root = corpus
    sid = "cb2e607c-c758-415a-8b45-c49e4631906a"
    blocks = _first_prompt(next(projects.glob(f"*/{sid}.jsonl")))
    assert blocks[0]["text"].startswith("<ide_selection>") and not blocks[1]["text"].startswith("<")
    title = build_view(root, sid)["summary"]["title"]
    assert title == _cut(blocks[1]["text"]) == "How can I make this possible to install as a library with `uv` so I can run from any directory?"


def test_a_slash_command_is_titled_by_its_name_and_arguments(corpus):
    projects, root = corpus
    sid = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
    prompt = _first_prompt(next(projects.glob(f"*/{sid}.jsonl")))
    name = re.search(r"<command-name>(.*?)</command-name>", prompt).group(1)
    args = re.search(r"<command-args>(.*?)</command-args>", prompt).group(1)
    assert build_view(root, sid)["summary"]["title"] == _cut(f"{name} {args}") and name == "/orchestrator"


def test_the_list_and_search_carry_the_same_titles(corpus):
    _, root = corpus
    run = [sys.executable, "-m", "asz_core.cli.main"]
    rows = json.loads(forked.run([*run, "conversations", "--json", "--root", str(root)], capture_output=True, text=True, check=True).stdout)
    titles = {r["id"]: r["title"] for r in rows}
    assert not [t for t in titles.values() if t.startswith(("<ide_selection>", "<command-message>"))], titles
    hits = json.loads(forked.run([*run, "search", "install as a library", "--json", "--root", str(root)], capture_output=True, text=True,
                                 check=True).stdout)
    assert hits and all(h["title"] == titles[h["conversation"]] for h in hits)

