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
from pathlib import Path

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


def test_one_cache_write_where_no_price_or_count_has_a_1_hour_one(corpus, tmp_path):
    """Trial 49c F7: a runtime with one cache write price read ``cache write 5m $0.05 (11%), cache write 1h $0.00``.
    With asz.yaml pricing a model with no ``cache_write_1h`` and its calls counting no 1-hour write (de3b8b19: 4 Opus
    4.5 calls, 3,539 cache-write tokens, none of them 1-hour, counted from the transcript), the line says one ``cache
    write``; where the calls count 1-hour writes (ef958aa1: Opus 4.7, every write 1-hour) or the price states a 1-hour
    one (the shipped table), the two kinds are said as before. Prices here: input 1, output 2, cache write 4, cache
    read 10 per million tokens; every amount worked from the transcript's counts."""
    corpus_source, corpus_root = corpus
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("prices:\n" + "".join(f"  {m}:\n    input: 1\n    output: 2\n    cache_write: 4\n    cache_read: 10\n"
                                         for m in ("claude-opus-4-5", "claude-opus-4-7")))
    at = ("--root", str(corpus_root), "--config", str(cfg))
    (path,) = corpus_source.rglob("de3b8b19-*.jsonl")
    usages = [u for _, u in _calls(path).values()]
    writes = sum(u.get("cache_creation_input_tokens", 0) for u in usages)
    assert writes == 3539 and not any((u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") for u in usages)
    amounts = [sum(u.get(k, 0) for u in usages) * rate / Decimal(1_000_000) for k, rate in
               (("input_tokens", 1), ("output_tokens", 2), ("cache_creation_input_tokens", 4), ("cache_read_input_tokens", 10))]
    (said,) = [x for x in asz("conversation", "de3b8b19", *at).stdout.splitlines() if x.startswith("cost by kind: ")]
    words = re.sub(r" \((?:\d+%|<1%)\)", "", said)  # the shares, checked by the other tests' rule
    assert words == ("cost by kind: " + ", ".join(f"{name} {dollars(a)}" for name, a in
                                                  zip(("input", "output", "cache write", "cache read"), amounts))), said
    head = asz("export", "de3b8b19", *at, "--format", "md").stdout.split("\n## ", 1)[0].splitlines()
    assert f"- {said}" in head, head
    (other,) = [x for x in asz("conversation", "ef958aa1", *at).stdout.splitlines() if x.startswith("cost by kind: ")]
    assert "cache write 5m $" in other and "cache write 1h $" in other and "cache write 1h $0.00" not in other, other
    (shipped,) = [x for x in asz("conversation", "de3b8b19", "--root", str(corpus_root)).stdout.splitlines()
                  if x.startswith("cost by kind: ")]
    assert "cache write 5m $" in shipped and "cache write 1h $0.00" in shipped, shipped


def test_a_copy_drawn_before_render_50_with_both_cache_writes_checks(corpus, tmp_path):
    """Render 50 says one ``cache write`` where render 49 said ``cache write 5m $X, cache write 1h $0.00``: a render-49
    md copy of de3b8b19 (priced by an asz.yaml entry with no 1-hour price) checks by ``asz verify --export``, drawn again
    as render 49 drew it; the same bytes said to be render 50 are a changed line."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "reading"))
    from reading_helpers import as_copy

    _, corpus_root = corpus
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("prices:\n  claude-opus-4-5:\n    input: 1\n    output: 2\n    cache_write: 4\n    cache_read: 10\n")
    at = ("--root", str(corpus_root), "--config", str(cfg))
    copy = tmp_path / "now.md"
    asz("export", "de3b8b19", *at, "--format", "md", "--out", str(copy))
    body = json.loads((tmp_path / "now.md.manifest.json").read_bytes())
    from asz_core.view.prices import HOUR_SPLIT_RENDER

    assert body["render"] >= HOUR_SPLIT_RENDER == 50
    data = copy.read_bytes()
    older, n = re.subn(rb"(cost by kind: [^\n]*?)cache write (\$[\d.]+(?: \(\d+%\))?), ", rb"\1cache write 5m \2, cache write 1h $0.00, ", data)
    assert n == 1 and older != data
    ok = asz("verify", "--export", as_copy(tmp_path, "old.md", older, {**body, "render": HOUR_SPLIT_RENDER - 1}), *at)
    assert ok.returncode == 0, ok.stdout
    bad = asz("verify", "--export", as_copy(tmp_path, "bad.md", older, body), *at)
    assert bad.returncode == 1 and "bad.md: line " in bad.stdout, bad.stdout
