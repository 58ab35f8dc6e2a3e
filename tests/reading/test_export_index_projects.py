"""A folder export's HTML index grouped by project, and each page's way back and around (trial 21, "Exports": the
index was one flat table, no per-project totals; a conversation page had no link back to the index and no in-page
navigation; claude-code-log has both). docs/reading.md, ``asz export``.

Over the Claude Code corpus (11 conversations in 9 projects): one section per project with exactly that project's
conversations, headed by totals equal to ``asz usage project``'s (conversations, tokens, cost) and the time its
conversations ran (``asz ls``'s first to last record, summed); each page links back to ``index.html`` and lists its
talks, each linking a heading of the page; the pages stay inert (no script, no external reference)."""

from __future__ import annotations

import html
import re
from datetime import datetime, timezone

import pytest
from reading_helpers import asz, asz_json
from test_export import _no_active_content

from asz_core.sessiondata.times import format_duration


@pytest.fixture(scope="module")
def exported(corpus_root, tmp_path_factory):
    out = tmp_path_factory.mktemp("export-index") / "all"
    asz("export", "--since", "2000-01-01", "--format", "html", "--tz", "UTC", "--out", str(out), "--root", str(corpus_root))
    return out, asz_json("ls", "--json", "--root", str(corpus_root)), asz_json("usage", "project", "--json", "--root", str(corpus_root))


def test_the_index_has_a_section_per_project_with_its_totals(exported):
    out, rows, usage = exported
    index = (out / "index.html").read_text(encoding="utf-8")
    _no_active_content(index)
    sections = re.findall(r'<section class="project" id="(project-\d+)"><h2><bdi>(.*?)</bdi></h2><p class="meta">(.*?)</p>'
                          r'<table>(.*?)</table></section>', index)
    by_project = {u["project"]: u for u in usage}
    assert len(sections) == len(by_project) == 9
    assert sum(index.count(f'href="#{anchor}"') for anchor, *_ in sections) == 9  # the list at the top links each
    for anchor, project, totals, table in sections:
        project = html.unescape(project)
        mine = [r for r in rows if r["project"] == project]
        assert sorted(re.findall(r'<td class="id">([^<]+)</td>', table)) == sorted(r["id"] for r in mine), project
        u = by_project[project]
        tokens = sum(u["usage"][k] for k in ("in", "out", "cache_read", "cache_write"))
        ran = format_duration(sum(r["to"] - r["from"] for r in mine) // 1000)
        first, last = (datetime.fromtimestamp(t / 1000, timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
                       for t in (min(r["from"] for r in mine), max(r["to"] for r in mine)))
        # the dates it was active between, then the spans named as a sum (trial 37a F8: "ran 800h" read as work)
        assert re.sub("<[^>]+>", "", html.unescape(totals)) == (
            f"{u['conversations']} conversation(s): {tokens:,} tokens, ${u['cost']['usd']:,.2f} · active {first} to "
            f"{last} · spans summed {ran}"), totals
    assert "spans summed: each conversation's first to last record, added up (not time worked" in index
    assert "11 conversation(s): " in index.rsplit("</section>", 1)[1]  # the whole export's total ends the page
    # the projects come with the one active last first
    last = [max(r["to"] for r in rows if r["project"] == html.unescape(p)) for _, p, _, _ in sections]
    assert last == sorted(last, reverse=True)


def test_each_page_links_back_and_lists_its_talks(exported, corpus_root):
    out, rows, _ = exported
    many = 0
    for r in rows:
        page = (out / f"{r['id']}.html").read_text(encoding="utf-8")
        assert "<script" not in page and "<link" not in page and not re.search(r'\ssrc="(?!data:)', page)
        assert "content=\"default-src 'none';" in page  # the conversation's own links stay, inert as before
        assert page.count('<a href="index.html">') == 1
        nav = re.search(r'<nav class="talks">(.*?)</nav>', page)
        heads = [x for x in re.findall(r'<h2 id="([^"]+)">', page)  # the talks' (the sections at the end are none)
                 if x not in ("executions", "unresolved", "undescribed")]
        if r["talks"] < 2:
            assert nav is None
            continue
        many += 1
        links = re.findall(r'<a href="#([^"]+)">', nav.group(1))
        assert links == heads and len(links) == r["talks"], r["id"]  # every talk, in order, each to its heading
    assert many >= 5
    one = asz("export", rows[0]["id"], "--format", "html", "--root", str(corpus_root)).stdout
    assert 'href="index.html"' not in one  # a single page has no index to go back to


#: Each date of the index text, and how many lines the browser draws it on (a range over exactly its characters).
_DATE_LINES = r"""
const out = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
const date = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/g;
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  for (const m of n.data.matchAll(date)) {
    const r = document.createRange();
    r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
    const tops = new Set([...r.getClientRects()].map(function (x) { return Math.round(x.top); }));
    out.push([m[0], tops.size]);
  }
}
return out;
"""


def test_the_index_keeps_each_date_on_one_line(exported, browser):
    """Trial 21 (``exp_index.png``): the index's dates wrapped to 3 lines at 1500 px; a project's totals line broke
    ``2026-02-11 22:54:29`` after its hyphen. Real Chromium, at the trial's 1500 px and at 800 px: every date of
    the page (each row's last activity, each project's first and last, trial 37a F8) is drawn on one line."""
    out, rows, _ = exported
    for width in (1500, 800):
        browser.set_window_size(width, 1000)
        browser.get((out / "index.html").as_uri())
        dates = browser.execute_script(_DATE_LINES)
        # each row's, and each of the 9 projects' first and last twice (the list, its section; trial 37a F8)
        assert len(dates) == len(rows) + 4 * 9
        assert [d for d in dates if d[1] != 1] == [], width
