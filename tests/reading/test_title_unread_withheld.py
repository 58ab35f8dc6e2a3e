"""A title is not shown while something is withheld when a landed file of its conversation could not be read: a
withheld record there, which would stop the title, is not seen (review A 26: ``title_lines.landed_lines`` and search's
title check skipped an unreadable file silently, so the title showed).

Real input: a LangSmith thread as the LangSmith API posts it (the shapes of test_search_withheld_title.py): a LangGraph
run asked ``tell me more about zebrafish`` (landed first, seq 1: its question is the thread's title), then a
``@traceable`` function asked the same question (landed in a second pass, seq 2: its records are flagged
``system_prompt``, so with ``view.hide: [system_prompt]`` the title is withheld). Then seq 2 is made mode 000; as root
the readers run without the capabilities that override a mode (``setpriv``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from test_landed_file_unreadable import _asz
from test_search_withheld_title import _runs

TITLE = "tell me more about zebrafish"


@pytest.fixture(scope="module")
def thread(tmp_path_factory) -> tuple[Path, Path, Path]:
    base = tmp_path_factory.mktemp("title-unread")
    root = base / "root"
    _runs(root)
    inbox = root / "_ingest" / "langsmith" / "inbox"
    ops = [json.loads(x) for x in (inbox / "001.jsonl").read_bytes().splitlines()]
    ops[0]["run"]["inputs"] = {"q": TITLE}  # the traced function asked what the thread is titled by
    for name, part in (("001.jsonl", ops[2:]), ("002.jsonl", ops[:2])):  # the LangGraph run first, the traced one after
        (inbox / name).write_bytes(b"".join(json.dumps(o).encode() + b"\n" for o in part))
        p = asz_in_process("collect", "--once", "--adapter", "langsmith-ingest", "--root", str(root), "--source", str(root))
        assert p.returncode == 0, p.stdout + p.stderr
    [sd1, sd2] = sorted(root.glob("*/streams/main/transcript-*.sd"))
    assert json.dumps(TITLE).encode() in sd1.read_bytes()  # the label: the thread's first question
    assert [b'"system_prompt"' in sd1.read_bytes(), b'"system_prompt"' in sd2.read_bytes()] == [False, True]
    assert f'"q":{json.dumps(TITLE)}'.encode() in sd2.read_bytes()  # the withheld record holds the title
    cfg = base / "hide.yaml"
    cfg.write_text('view:\n  hide: ["system_prompt"]\n')
    return root, cfg, sd2


def _ls(root: Path, *more: str) -> dict:
    p = _asz("ls", "--json", "--root", str(root), *more)
    assert "Traceback" not in p.stderr, p.stderr
    [row] = json.loads(p.stdout)
    return row


def _search_titles(root: Path, *more: str) -> list[str]:
    for f in (root / "_index").glob("search-*"):  # built afresh from the files as they are now
        f.unlink()
    p = _asz("search", "zebrafish", "--json", "--root", str(root), *more)
    assert "Traceback" not in p.stderr, p.stderr
    return [h["title"] for h in json.loads(p.stdout)]


def test_no_title_is_shown_from_a_conversation_whose_withheld_record_may_be_in_a_file_not_read(thread):
    root, cfg, sd2 = thread
    assert _ls(root)["title"] == TITLE and _ls(root, "--config", str(cfg))["title"] == ""  # the rule, files readable
    assert set(_search_titles(root, "--config", str(cfg))) == {""}
    rel = sd2.relative_to(root).as_posix()
    unread = f"landed file {rel} cannot be read: Permission denied"
    said = f"the title is withheld: {unread}, and a record view.hide withholds (system_prompt) may hold it there"
    sd2.chmod(0)
    try:
        shown, hidden = _ls(root), _ls(root, "--config", str(cfg))
        found_shown, found_hidden = _search_titles(root), _search_titles(root, "--config", str(cfg))
        c = _asz("conversation", "ls-p", "--root", str(root), "--hide", "system_prompt")
    finally:
        sd2.chmod(0o444)
    assert shown["title"] == TITLE and unread in shown["problems"] and said not in shown["problems"]  # nothing withheld
    assert hidden["title"] == "" and unread in hidden["problems"] and said in hidden["problems"]
    assert found_shown and set(found_shown) == {TITLE}
    assert found_hidden and set(found_hidden) == {""}
    lines = c.stdout.splitlines()
    assert lines[0].endswith(": (title withheld)") and f"problem: {said}" in lines and TITLE not in c.stdout
