"""A conflict line names what differs between two records under one id (trial 48c F4).

Real input, as the trial made it: the corpus Kiro IDE session ``sess_5e804080…`` and a copy of it under another
session id with one model line inserted before the first model line that is followed by a tool call (the trial's copy
had 6 lines inserted). The two lines after it are byte-identical in both files, but in the copy they are read under
the model request the inserted line opens (Kiro 3.x records no call id: a model line joins the request open before
it), so each is a conflict. Before: ``with a different payload``, read as changed bytes; now ``read under another
model call (its call: X here, Y in S)``, the two ids read from the source lines. A copy of the render before
(43) is made again
with the earlier words, so it still verifies.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reading_helpers import asz, kiro_home_session

IDE = "sess_5e804080-466c-4f65-bde9-f6133b7068f6"
COPY = "sess_5e804080-0000-0000-0000-00000000000c"
INSERTED = "inserted-say-48c-f4"


def _inserted(lines: list[str]) -> tuple[list[str], int]:
    """``lines`` with one model line inserted before the first ``assistant`` line a ``tool_call`` follows, and that
    line's number (from 1) in the original."""
    for n in range(len(lines) - 1):
        a, b = json.loads(lines[n]), json.loads(lines[n + 1])
        if a["payload"]["type"] == "assistant" and b["payload"]["type"] == "tool_call":
            line = json.dumps({"id": INSERTED, "timestamp": a["timestamp"],
                               "payload": {"type": "assistant", "content": "inserted"}}) + "\n"
            return [*lines[:n], line, *lines[n:]], n + 1
    raise AssertionError("no model line before a tool call in the source")


@pytest.fixture(scope="module")
def copied(corpus_dir: Path, tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("conflict-fields")
    home, orig, lines = kiro_home_session(corpus_dir, base, IDE)
    changed, row = _inserted(lines)
    d = orig.parent / COPY
    d.mkdir()
    (d / "messages.jsonl").write_text("".join(changed), encoding="utf-8")
    (d / "session.json").write_text((orig / "session.json").read_text(encoding="utf-8").replace(IDE, COPY), encoding="utf-8")
    root = base / "root"
    asz("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    said, tool = json.loads(lines[row - 1]), json.loads(lines[row])
    assert changed[row] == lines[row - 1] and changed[row + 1] == lines[row], "the two lines are byte-identical"
    return {"root": root, "row": row, "ids": [said["id"], tool["id"]], "call": said["id"]}


def _problems(t: dict, conversation: str) -> list[str]:
    doc = json.loads(asz("conversation", conversation, "--json", "--root", str(t["root"])).stdout)
    return [p for p in doc["summary"]["problems"] if p.startswith("conflict:")]


def test_a_line_read_under_another_model_call_says_so(copied):
    t = copied
    first, second = sorted((IDE, COPY))  # the copy's id sorts first: it draws; the original continues it
    assert first == COPY
    want = {IDE: [(t["row"] + i, t["call"], INSERTED, COPY) for i in (0, 1)],
            COPY: [(t["row"] + 1 + i, INSERTED, t["call"], IDE) for i in (0, 1)]}
    for conv, rows in want.items():
        said = [f"conflict: record id {rid} landed at 1/{row} here and in session(s) {other} read under another model "
                f"call (its call: {here} here, {there} in {other}); each session draws its own"
                for rid, (row, here, there, other) in zip(t["ids"], rows)]
        assert _problems(t, conv) == said
        assert not any("different payload" in p for p in _problems(t, conv))


def test_a_copy_of_the_render_before_is_drawn_with_its_words_and_still_verifies(copied, tmp_path):
    from asz_core.reading.export_render import FIELDS_RENDER, RENDER, drawing

    t = copied
    new, old = tmp_path / "new.md", tmp_path / "old.md"
    asz("export", IDE, "--format", "md", "--out", str(new), "--root", str(t["root"]))
    assert json.loads(new.with_name("new.md.manifest.json").read_text())["render"] == RENDER >= FIELDS_RENDER
    assert f"read under another model call (its call: {t['call']} here, {INSERTED} in {COPY})" in new.read_text()
    with drawing(FIELDS_RENDER - 1):
        asz("export", IDE, "--format", "md", "--out", str(old), "--root", str(t["root"]))
    said = [x for x in old.read_text().splitlines() if "conflict: record id" in x]
    assert len(said) == 2 and all(x.endswith(f"in session(s) {COPY} with a different payload; each session draws its own")
                                  for x in said), said
    manifest = old.with_name("old.md.manifest.json")
    body = json.loads(manifest.read_text())
    for render, notes in ((FIELDS_RENDER - 1, 0), (FIELDS_RENDER, 4)):  # said as the later: 2 problems gained, 2 gone
        manifest.write_text(json.dumps({**body, "render": render}))
        ok = asz("verify", "--export", str(old), "--root", str(t["root"]))
        assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
        assert sum(" problem " in x and "since" in x for x in ok.stdout.splitlines()) == notes, ok.stdout
