"""A folder export's index totals count a provider call two exported conversations hold once, as ``asz usage`` does
(fix37a item 2; review36 item 2: a fork of a corpus transcript exported with ``--format md`` read
``2 conversation(s): 6,056,375 tokens, $3.06`` where the root spent 3,659,699 tokens, $1.97). Each row keeps its own
figure; the total line says how many calls rows share and under which conversation they are counted; the html
index's per-project totals take them off the project whose rows did not make them first, so they add up to the
whole. The copies still verify against the root.

Real input (tests/same_calls_roots.py), collected by the real ``asz collect``: the corpus's cb2e607c and a fork of it
from its 151st line under another cwd, and the corpus's 326189cf and a copy under a new session id with new record
uuids. Every figure is held to the counts made here from the source files, and to ``asz usage --json``.
"""

from __future__ import annotations

import html
import json
import re
import sys
from pathlib import Path

import pytest

from reading_helpers import asz

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dollars import dollars  # noqa: E402
from same_calls_roots import A, B, FORK, FORK_CWD, ORIGINAL, ORIGINAL_CWD, figures, write_sources  # noqa: E402

#: where the total counts a call two conversations hold (usage_once.once since b4afd475: the most output, then first)
ONCE = "under the conversation whose copy counts the most output tokens, then the one that made them first"
RULE = "the same call id and request id: a fork, an import or a copy under a new session id; each row counts its own"


@pytest.fixture(scope="module")
def exported(corpus_source, tmp_path_factory) -> tuple[Path, Path, dict]:
    base = tmp_path_factory.mktemp("index-same-calls")
    src = write_sources(corpus_source, base / "projects", copy=True)
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "projects"), "--root", str(root))
    for fmt in ("md", "html"):
        asz("export", "--project", "/", "--format", fmt, "--out", str(base / fmt), "--root", str(root))
    return root, base, src


def _total(calls: int, tokens: dict, cost) -> str:
    return f"{sum(tokens.values()):,} tokens, {dollars(cost)}"


def test_the_md_index_total_counts_each_call_once(exported):
    root, base, src = exported
    calls, tokens, cost = figures(*src.values())
    assert calls == 95  # the premise: the fork and the copy add no call
    last = (base / "md" / "index.md").read_text(encoding="utf-8").rstrip("\n").splitlines()[-1]
    assert last == (f"4 conversation(s): {_total(calls, tokens, cost)} (56 model call(s) that two conversations or more "
                    f"hold are counted once, {ONCE}: {FORK[:8]}'s 41 under {ORIGINAL[:8]}; "
                    f"{B[:8]}'s 15 under {A[:8]}; {RULE})"), last  # was 4 conversation(s): 6,707,033 tokens, $3.45
    cli = json.loads(asz("usage", "--json", "--total-once", "--root", str(root)).stdout)["total"]
    assert cli["calls"] == calls and sum(cli["usage"].values()) == sum(tokens.values())
    rows = {r["id"]: r for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout)}
    md = (base / "md" / "index.md").read_text(encoding="utf-8")
    for cid in src:  # each row its own figure
        own = figures(src[cid])
        assert rows[cid]["llm_calls"] == own[0]
        assert re.search(rf"\| {sum(own[1].values()):,} \| {re.escape(dollars(own[2]))} \| verified \| \[{cid}\.md\]", md), cid


def test_the_html_project_totals_add_up_to_the_whole(exported):
    root, base, src = exported
    page = html.unescape((base / "html" / "index.html").read_text(encoding="utf-8"))
    metas = re.findall(r'<p class="meta">(\d+ conversation\(s\): [^<·]*?)(?: · |</p>)', page)
    whole = figures(*src.values())
    fork_line = (f"1 conversation(s): 0 tokens, $0.00 (41 model call(s) that two conversations or more hold are "
                 f"counted once, {ONCE}: {FORK[:8]}'s 41 under {ORIGINAL[:8]}; {RULE})")
    assert fork_line in metas  # the fork's project: every call of it made first by the original, in another project
    assert f"1 conversation(s): {_total(*figures(src[ORIGINAL]))}" in metas  # the original's, whole
    assert (f"2 conversation(s): {_total(*figures(src[A]))} (15 model call(s) that two conversations or more hold are "
            f"counted once, {ONCE}: {B[:8]}'s 15 under {A[:8]}; {RULE})") in metas
    assert metas[-1].startswith(f"4 conversation(s): {_total(*whole)} (56 model call(s)")
    rows = json.loads(asz("usage", "project", "--json", "--root", str(root)).stdout)
    by = {r["project"]: r for r in rows}  # asz usage project: the same split
    assert by[ORIGINAL_CWD]["calls"] == 80 and by.get(FORK_CWD, {"calls": 0})["calls"] == 0


def test_the_copies_still_verify(exported):
    root, base, _ = exported
    for fmt in ("md", "html"):
        out = asz("verify", "--export", str(base / fmt), "--root", str(root)).stdout
        assert "ok: 4 of 4 copies check against the root" in out and "the folder checks against the root" in out, out
