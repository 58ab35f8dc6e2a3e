"""The cost by kind of token, with each kind's share of the exact cost, in the exports' head and the page's
conversation header, as ``asz conversation`` says it (trial 27a F3 put it in ``asz conversation`` and ``asz usage
--breakdown`` only).

The shares are worked from the corpus's transcripts at the published rates (tests/view/test_cost_by_kind.py's rule):
de3b8b19 (4 Opus 4.5 calls, $0.06: cache writes 37.9 %, cache reads 60.8 %, never the 33 % / 67 % of the cents) and
55604662 (1 Opus 4.6 call, $0.14: 1-hour cache writes 95.8 %, cache reads 4.0 %).
"""

from __future__ import annotations

import html
import json
import re
from decimal import Decimal

from cli_helpers import asz_in_process as asz
from dollars import dollars
from test_cost_by_kind import KINDS, NAMES, _calls, _cost, _said, _shares

SAMPLES = ("de3b8b19", "55604662")


def _kinds_said(line: str, exact: dict) -> None:
    """``line`` (the words after ``cost by kind:``) gives each kind its amount (``exact``, USD by kind, worked from the
    transcript) as docs/reading.md says a cost reads, and its share of the exact cost."""
    share = _shares(exact)
    for k, name in zip(KINDS, NAMES):
        said = f"{name} {dollars(exact[k])}{_said(share[k])}"
        assert re.search(rf"{re.escape(said)}(,|$)", line), (said, line)


def test_the_exports_and_the_document_say_the_cost_of_each_kind(corpus, tmp_path):
    corpus_source, corpus_root = corpus
    for sid in SAMPLES:
        (path,) = corpus_source.rglob(f"{sid}-*.jsonl")
        exact = _cost(_calls(path).values())
        out = asz("conversation", sid, "--root", str(corpus_root)).stdout.splitlines()
        (said,) = [x[len("cost by kind: "):] for x in out if x.startswith("cost by kind: ")]
        _kinds_said(said, exact)
        doc = json.loads(asz("conversation", sid, "--root", str(corpus_root), "--json").stdout)
        assert doc["summary"]["cost_by_kind_line"] == said  # what the page's header shows
        md = asz("export", sid, "--root", str(corpus_root), "--format", "md").stdout
        head = md.split("\n## ", 1)[0].splitlines()
        cost = head.index(next(x for x in head if x.startswith("- cost $")))
        assert head[cost + 1] == f"- cost by kind: {said}", head  # under the cost line, as asz conversation prints it
        page = tmp_path / f"{sid}.html"
        asz("export", sid, "--root", str(corpus_root), "--format", "html", "--out", str(page))
        top = html.unescape(re.sub(r"<[^>]+>", "\n", page.read_text().split("<h2", 1)[0]))
        assert f"cost by kind: {said}" in top.splitlines(), top
        text = asz("export", sid, "--root", str(corpus_root), "--format", "text").stdout.split("\n\n", 1)[0]
        (line,) = [x for x in text.splitlines() if x.startswith("cost_by_kind_line: ")]
        _kinds_said(line[len("cost_by_kind_line: "):], exact)
        audit = json.loads(asz("export", sid, "--root", str(corpus_root), "--audit").stdout.splitlines()[0])
        assert audit["cost_by_kind_line"] == line[len("cost_by_kind_line: "):]


def test_the_exports_price_by_the_configurations_table(corpus, tmp_path):
    """asz.yaml's ``prices`` price every export as they price ``asz conversation`` and ``asz ls`` (one table): the md
    and html head, the json document and the index of ``--out DIR/``, where those read the shipped table. de3b8b19's 4
    Opus 4.5 calls priced here at $10 per million cache-read tokens and nothing else: the cost is its transcript's
    cache reads x 10 / 1e6, all of it cache reads (100%)."""
    corpus_source, corpus_root = corpus
    sid = "de3b8b19"
    (path,) = corpus_source.rglob(f"{sid}-*.jsonl")
    reads = sum(u.get("cache_read_input_tokens", 0) for _, u in _calls(path).values())
    assert reads > 0
    usd = Decimal(reads) * 10 / 1_000_000
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("prices:\n  claude-opus-4-5:\n    input: 0\n    output: 0\n    cache_write: 0\n    cache_write_1h: 0\n"
                   "    cache_read: 10\n")
    at = ("--root", str(corpus_root), "--config", str(cfg))
    said = [x for x in asz("conversation", sid, *at).stdout.splitlines() if x.startswith("cost ")]
    assert said[0] == f"cost ${usd:,.2f}", said  # asz conversation, the reference
    assert said[1] == f"cost by kind: input $0.00, output $0.00, cache write 5m $0.00, cache write 1h $0.00, cache read ${usd:,.2f} (100%)"
    head = asz("export", sid, *at, "--format", "md").stdout.split("\n## ", 1)[0].splitlines()
    assert f"- {said[0]}" in head and f"- {said[1]}" in head, head
    page = tmp_path / f"{sid}.html"
    asz("export", sid, *at, "--format", "html", "--out", str(page))
    top = html.unescape(re.sub(r"<[^>]+>", "\n", page.read_text().split("<h2", 1)[0])).splitlines()
    assert said[0] in top and said[1] in top, top
    doc = tmp_path / f"{sid}.json"
    asz("export", sid, *at, "--format", "json", "--out", str(doc))
    assert Decimal(json.loads(doc.read_text())["summary"]["cost"]["usd_exact"]) == usd
    folder = tmp_path / "several"
    asz("export", sid, *at, "--since", "2000-01-01", "--until", "2100-01-01", "--format", "md", "--out", f"{folder}/")
    (row,) = [x for x in (folder / "index.md").read_text().splitlines() if f"({sid}" in x]
    assert f"| ${usd:,.2f} |" in row, row
