"""The page draws a command typed locally or in bash mode as typed and its output preformatted, from the ``blocks`` of
``/api/c/{id}/headings`` (docs/view.md, "Commands and their output"); a bash-mode command's output is in its
command's talk. The document ``/api/c/{id}/view`` keeps every text as the record holds
it. Expected values are read from the corpus's source transcripts (a7da6a22: ``/context``, ``/model``; 326189cf:
``!uv run ty check`` and its output in the next record)."""

from __future__ import annotations

import json

import pytest

from test_view_server_browser import open_at, wait  # noqa: F401  (the browser fixture is in tests/conftest.py)

from selenium.webdriver.common.by import By  # noqa: E402  (test_view_server_browser skips without selenium)

DEEP = ("-src-deep-manifest", "a7da6a22-facc-4fcd-8bab-f83c87862004")
BASH = ("-Users-alex-workspace-claude-code-log-sample", "326189cf-5676-4237-8cde-1ce80aae4a9f")


def _typed(corpus_dir, which) -> list[str]:
    """The text of each ``user`` line of the source whose content is a string, in file order."""
    path = corpus_dir / "claude-code" / "projects" / which[0] / f"{which[1]}.jsonl"
    return [d["message"]["content"] for d in map(json.loads, path.read_text(encoding="utf-8").splitlines())
            if d.get("type") == "user" and isinstance((d.get("message") or {}).get("content"), str)]


def _inside(text: str, tag: str) -> str:
    return text.split(f"<{tag}>", 1)[1].split(f"</{tag}>", 1)[0]


def _nodes(doc: dict) -> dict[str, dict]:
    out, todo = {}, list(doc["talks"])
    while todo:
        n = todo.pop()
        out[n["id"]] = n
        todo += n.get("children") or []
    return out


def test_api_blocks_read_the_commands_and_their_output_whole(corpus_root, corpus_dir, serve):
    s = serve(corpus_root)
    typed = _typed(corpus_dir, DEEP)
    context_out, model_out = typed[2], typed[5]
    doc = s.get(f"/api/c/{DEEP[1]}/view").json()
    got = s.get(f"/api/c/{DEEP[1][:8]}/headings").json()["blocks"]
    by_text = {n.get("text"): i for i, n in _nodes(doc).items()}
    assert got[by_text[typed[1]]] == [["command", "/context"]] and got[by_text[typed[4]]] == [["command", "/model"]]
    assert got[by_text[model_out]] == [["stdout", _inside(model_out, "local-command-stdout")]]  # colour codes: the page's to remove
    # /context's output is clipped in the document (2,000 bytes); its blocks are read whole from the record
    [clipped] = [n for n in _nodes(doc).values() if n.get("text") and context_out.startswith(n["text"]) and n["text"] != context_out]
    assert got[clipped["id"]] == [["stdout", _inside(context_out, "local-command-stdout").strip("\n")]]
    assert clipped["text"] != context_out and context_out.startswith(clipped["text"])  # the document keeps its own


def test_api_reads_a_bash_mode_command_and_its_output_in_one_talk(corpus_root, corpus_dir, serve):
    """The output's record joins the command's talk (trial 16b, finding 8; a root landed before that, with the output
    a talk of its own headed by its command, is read in tests/reading/test_export_commands.py)."""
    s = serve(corpus_root)
    typed = _typed(corpus_dir, BASH)
    assert typed[1] == "<bash-input>uv run ty check</bash-input>" and typed[3] == "please fix these"
    doc = s.get(f"/api/c/{BASH[1]}/view").json()
    answer = s.get(f"/api/c/{BASH[1][:8]}/headings").json()
    ids = [t["id"] for t in doc["talks"]]
    assert [answer["headings"][i] for i in ids] == ["! uv run ty check", "please fix these"]
    assert [t["label"] for t in doc["talks"]] == [typed[1], typed[3]]
    out, err = _inside(typed[2], "bash-stdout").strip("\n"), _inside(typed[2], "bash-stderr").strip("\n")
    [step] = [n for n in _nodes({"talks": [doc["talks"][0]]}).values() if n.get("text") == typed[2]]
    assert answer["blocks"][step["id"]] == [["stdout", out], ["stderr", err]]


@pytest.mark.slow  # a browser and a server over the corpus
def test_page_draws_a_command_as_typed_and_its_output_preformatted(corpus_root, corpus_dir, serve, browser):
    s = serve(corpus_root)
    typed = _typed(corpus_dir, DEEP)
    output = _inside(typed[5], "local-command-stdout").replace("\x1b[1m", "").replace("\x1b[22m", "")
    assert output == "Set model to opus (claude-opus-4-5-20251101)"  # the source's only codes there: bold on, off
    drv = browser
    open_at(drv, f"{s.base}/c/{DEEP[1]}", "section.talk .talkhead .label")
    heads = drv.find_elements(By.CSS_SELECTOR, "section.talk .talkhead")
    heads[1].click()  # /model
    talk = drv.find_elements(By.CSS_SELECTOR, "section.talk")[1]
    code = wait(drv, lambda d: talk.find_elements(By.CSS_SELECTOR, ".k-message-external .blocks .command code"))
    assert [c.text for c in code] == ["/model"]
    row = talk.find_element(By.CSS_SELECTOR, ".k-context-injection .row")
    assert output in row.text
    row.click()
    pre = wait(drv, lambda d: talk.find_elements(By.CSS_SELECTOR, ".k-context-injection pre.output.stdout"))
    assert pre[0].text == output
    assert "command-name" not in talk.text and "local-command-stdout" not in talk.text and "\\x1b" not in talk.text
