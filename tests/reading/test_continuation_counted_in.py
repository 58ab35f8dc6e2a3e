"""A continuation with no model call of its own says 0, counted in the conversation it continues, in every reader
(trial 46a F5, after f49cbf4d gave it 0 and $0.00 in ``asz ls`` and the page's list): ``asz conversation`` and an md
or html export's header said ``tokens not recorded`` and ``cost -``, a folder export's index ``not recorded`` and
``-``, the words of a runtime that records no token count. Render 33; a copy drawn by render 32 still checks.

Real input (../shared/corpus, skipped when absent): the corpus's de3b8b19 transcript and a copy of it whose session id
alone is changed, collected by the real ``asz collect --once``. The calls are counted from the transcript's lines (one
per message id + request id of an assistant line), never from asz. A Kiro copy stays ``not recorded``
(tests/reading/test_kiro_copy_not_recorded.py)."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from reading_helpers import asz, checks_as_render

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from continued_copy import copied_pair  # noqa: E402


@pytest.fixture(scope="module")
def pair(corpus_dir, tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("continued-counted-in")
    root, calls = (got := copied_pair(corpus_dir, base, asz))["root"], got["calls"]
    rows = json.loads(asz("ls", "--json", "--root", str(root)).stdout)
    (copy,) = [r for r in rows if r.get("continues")]
    (counting,) = [r for r in rows if r is not copy]
    assert counting["llm_calls"] == calls == 4 and copy["continues"] == counting["id"]
    return {"root": root, "copy": copy["id"], "counting": counting["id"], "base": base}


def _said(there: str) -> list[str]:
    return [f"tokens 0, counted in {there} (every model call of this conversation is a record it repeats of that one, "
            "drawn and counted there)", f"cost $0.00, counted in {there}"]


def test_conversation_says_0_counted_in_the_one_it_continues(pair):
    text = asz("conversation", pair["copy"], "--root", str(pair["root"])).stdout.splitlines()
    assert all(x in text for x in _said(pair["counting"])), text
    assert not any("not recorded" in x or x.startswith("cost -") for x in text), text
    other = asz("conversation", pair["counting"], "--root", str(pair["root"])).stdout
    assert "counted in" not in other and "tokens in " in other


def test_conversation_json_gives_counted_in_as_the_page_does(pair):
    """``asz conversation --json`` and ``--yaml``'s ``summary.counted_in``: the conversation the copy's calls are counted
    in, the value the page's ``/api/c/ID/view`` gives (a real server state's document); none for the one counting
    them (fix47a: --json lacked the key that its text, ``asz ls`` and the page say)."""
    from asz_core.view.state import ViewState

    root = pair["root"]
    page = {cid: json.loads(ViewState(root).document(cid, ()).body)["summary"] for cid in (pair["copy"], pair["counting"])}
    got = json.loads(asz("conversation", pair["copy"], "--json", "--root", str(root)).stdout)["summary"]
    assert got["counted_in"] == page[pair["copy"]]["counted_in"] == pair["counting"]
    assert "counted_in: " + pair["counting"] in asz("conversation", pair["copy"], "--yaml", "--root", str(root)).stdout
    other = json.loads(asz("conversation", pair["counting"], "--json", "--root", str(root)).stdout)["summary"]
    assert "counted_in" not in other and "counted_in" not in page[pair["counting"]]


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_a_folder_export_says_it_in_index_and_header_and_checks(pair, fmt, tmp_path):
    root, copy = pair["root"], pair["copy"]
    for out, ids in ((tmp_path / "both", ["--project", "p"]), (tmp_path / "alone", [copy])):
        asz("export", *ids, "--format", fmt, "--out", str(out) + "/", "--root", str(root))
        index = (out / f"index.{fmt}").read_text(encoding="utf-8")
        head = (out / f"{copy}.{fmt}").read_text(encoding="utf-8")
        assert "not recorded" not in index and "not recorded" not in head
        if fmt == "md":
            (row,) = [x for x in index.splitlines() if f"[{copy}.md]" in x]
            assert row.split(" | ")[3:7] == ["claude-code", "0", "0", "$0.00"], row  # its runtime column: render 57
            assert all(f"- {x}" in head.splitlines() for x in _said(pair["counting"]))
        else:
            (row,) = [x for x in index.splitlines() if f"<td class=\"id\">{copy}</td>" in x]
            assert "<td class=\"num\">0</td><td class=\"num\">$0.00</td>" in row, row
            assert all(x in head for x in _said(pair["counting"]))
        p = asz("verify", "--export", str(out), "--root", str(root), check=False)
        assert p.returncode == 0 and "the index's figures (talks, tokens, cost, state)" in p.stdout, p.stdout


def test_a_copy_drawn_by_render_32_still_checks(pair, tmp_path):
    from asz_core.reading.export_render import drawing

    old = tmp_path / "old.md"
    with drawing(32):
        asz("export", pair["copy"], "--format", "md", "--out", str(old), "--root", str(pair["root"]))
    lines = old.read_text(encoding="utf-8").splitlines()
    assert "- tokens not recorded: no model call is recorded in this conversation" in lines
    assert "- cost - (no tokens to price)" in lines
    checks_as_render(old, pair["root"], 32, 33)


def test_an_index_drawn_by_render_32_still_checks(pair, tmp_path):
    """A render-32 folder: its index row of the copy ``not recorded`` and ``-``; asz verify checks its figures by the
    render its copies' manifests name."""
    from asz_core.reading.export_render import drawing

    out = tmp_path / "old"
    with drawing(32):
        asz("export", "--project", "p", "--format", "md", "--out", str(out) + "/", "--root", str(pair["root"]))
    (row,) = [x for x in (out / "index.md").read_text(encoding="utf-8").splitlines() if f"[{pair['copy']}.md]" in x]
    assert row.split(" | ")[4:6] == ["not recorded", "-"], row
    folder = json.loads((out / "export.manifest.json").read_bytes())
    for f in folder["files"]:  # each copy's manifest says render 32, as the asz that drew it wrote
        m = out / f["manifest"]["file"]
        m.write_text(json.dumps({**json.loads(m.read_bytes()), "render": 32}))
        f["manifest"]["sha256"] = hashlib.sha256(m.read_bytes()).hexdigest()
    (out / "export.manifest.json").write_text(json.dumps(folder))
    p = asz("verify", "--export", str(out), "--root", str(pair["root"]), check=False)
    assert p.returncode == 0 and "the index's figures (talks, tokens, cost, state) of 2 conversation(s)" in p.stdout, p.stdout
    assert p.stdout.splitlines()[-1] == "the folder checks against the root", p.stdout


def test_the_conversation_continued_is_read_from_its_kept_summary(pair, monkeypatch):
    """fix47b: ``recorded_in`` built the continued conversation's summary (about half a build) on every call, for each
    ``asz conversation``, export and page view of a copy; it reads the summary ``asz ls`` keeps instead, counted and
    kept when not there. Its answer is the built summary's for both conversations: the counting one's calls carry
    token counts (4 calls in its transcript), the copy has none of its own."""
    from asz_core.view import document
    from asz_core.view.counted_in import recorded_in
    from asz_core.view.rows import usage_unrecorded

    root = pair["root"]
    built = {}
    for cid in (pair["counting"], pair["copy"]):
        s = document.build_summary(root, cid)[0]["summary"]
        built[cid] = not usage_unrecorded(s["llm_calls"], s["calls_with_usage"], s.get("credits"))
        assert recorded_in(root)(cid) is built[cid]
    assert built == {pair["counting"]: True, pair["copy"]: False}

    def built_again(*_a, **_k):
        raise AssertionError("the kept summary was not read")

    monkeypatch.setattr(document, "conversation_checked", built_again)
    monkeypatch.setattr(document, "build_summary", built_again)
    assert recorded_in(root)(pair["counting"]) is True
    assert _said(pair["counting"])[0] in asz("conversation", pair["copy"], "--root", str(root)).stdout
