"""md and html cut a long tool result, its size said (``asz export --result-limit``; trial 49b F2, render 52).

A 1,820,022-byte Bash result of 20,000 lines was drawn whole: a 1.8 MB md copy and an html page whose folded line
said no size (934 pages printed). Real input: the corpus's 5c0375b4, whose Bash result on line 33 is 10,041
characters, and the same transcript with a 20,000-line ``seq`` output planted as the result on line 29, collected by
``asz collect --once``. Sizes and line counts are counted here from the source lines, never from asz's output."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from reading_helpers import asz, planted_root

SID = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"
TRANSCRIPT = f"claude-code/projects/-home-user-sample-project/{SID}.jsonl"
SEQ = "\n".join(str(i) for i in range(1, 20001))
CUT = re.compile(r"^\*\[result cut for sharing: ([\d,]+) bytes in ([\d,]+) lines; drawn here its first ([\d,]+) bytes "
                 r"\(([\d,]+) lines\) and its last ([\d,]+) \(([\d,]+) lines\), the ([\d,]+) bytes between left out "
                 r"\(--result-limit ([\d,]+); --result-limit 0 draws it whole\)\. The whole result is in the root \(asz "
                 r"show ID STEP\) and in asz export ID --format json --whole\]\*$", re.M)


def _plant(lines: list[dict]) -> None:
    lines[28]["message"]["content"][0]["content"] = SEQ


@pytest.fixture(scope="module")
def roots(corpus_dir, tmp_path_factory):
    if not (corpus_dir / TRANSCRIPT).is_file():
        pytest.skip(f"the corpus lacks {TRANSCRIPT}")
    source = [json.loads(x) for x in (corpus_dir / TRANSCRIPT).read_text().splitlines()]
    long = source[32]["message"]["content"][0]["content"]
    assert isinstance(long, str) and len(long) == 10_041 and isinstance(source[28]["message"]["content"][0]["content"], str)
    planted = planted_root(corpus_dir, tmp_path_factory.mktemp("result-cut"), TRANSCRIPT, _plant)
    return planted, long


def _n(x: str) -> int:
    return int(x.replace(",", ""))


def _lines(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def test_a_20000_line_result_is_cut_by_default_and_said(roots, tmp_path):
    root, long = roots
    out = tmp_path / "c.md"
    asz("export", SID[:8], "--out", str(out), "--root", str(root))
    md = out.read_text()
    cuts = [tuple(map(_n, m)) for m in CUT.findall(md)]
    size, lines = len(SEQ.encode()), _lines(SEQ)
    assert (size, lines) == (108_893, 20_000) and len(cuts) == 1  # the 10,041-character one is within 30,000: whole
    whole, n, head, head_n, tail, tail_n, gone, limit = cuts[0]
    assert (whole, n, limit) == (size, lines, 30_000) and head + tail + gone == size and head + tail <= limit
    assert SEQ.encode()[:head].decode().rstrip("\n") + "\n```" in md  # its first lines, whole, then the fence
    assert "```\n" + SEQ.encode()[size - tail:].decode() + "\n```" in md  # its last lines
    assert (head_n, tail_n) == (_lines(SEQ.encode()[:head].decode()), _lines(SEQ.encode()[size - tail:].decode()))
    assert long[-3000:] in md and SEQ not in md and len(md.encode()) < len(SEQ.encode())
    ok = asz("verify", "--export", str(out), "--root", str(root), check=False)
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
    page = tmp_path / "c.html"
    asz("export", SID[:8], "--format", "html", "--out", str(page), "--root", str(root))
    html = page.read_text()
    assert html.count(f'<span class="cut">result {size:,} bytes, cut</span>') == 1 and html.count('<p class="cut">') == 1
    ok = asz("verify", "--export", str(page), "--root", str(root), check=False)
    assert ok.returncode == 0, ok.stdout


def test_the_limit_is_chosen_recorded_and_checked(roots, corpus_dir, tmp_path):
    root, long = roots
    source = [json.loads(x) for x in (corpus_dir / TRANSCRIPT).read_text().splitlines()]
    _plant(source)
    results = [b["content"] for d in source if isinstance(d.get("message", {}).get("content"), list)
               for b in d["message"]["content"] if b.get("type") == "tool_result" and isinstance(b.get("content"), str)]
    out = tmp_path / "c.md"
    asz("export", SID[:8], "--result-limit", "4000", "--out", str(out), "--root", str(root))
    md = out.read_text()
    cuts = sorted(tuple(map(_n, m)) for m in CUT.findall(md))
    over = sorted((len(t.encode()), _lines(t)) for t in results if len(t.encode()) > 4000)  # counted in the source
    assert [c[:2] for c in cuts] == over and len(over) == 3 and (len(long.encode()), _lines(long)) in over
    assert all(c[7] == 4000 and c[2] + c[4] <= 4000 for c in cuts)
    manifest = json.loads(out.with_name("c.md.manifest.json").read_text())
    assert manifest["made"]["result_limit"] == 4000 and manifest["render"] >= 52
    assert asz("verify", "--export", str(out), "--root", str(root), check=False).returncode == 0
    body, data = dict(manifest), out.read_bytes()  # the same copy said to be made at another limit: not this copy
    body["made"] = {**manifest["made"], "result_limit": 30_000}
    out.with_name("c.md.manifest.json").write_text(json.dumps(body))
    assert asz("verify", "--export", str(out), "--root", str(root), check=False).returncode == 1
    whole = tmp_path / "w.md"
    asz("export", SID[:8], "--result-limit", "0", "--out", str(whole), "--root", str(root))
    assert SEQ in whole.read_text() and not CUT.search(whole.read_text())
    assert asz("verify", "--export", str(whole), "--root", str(root), check=False).returncode == 0
    for args in (("--brief",), ("--format", "json"), ("--format", "text")):
        p = asz("export", SID[:8], *args, "--result-limit", "10", "--root", str(root), check=False)
        assert p.returncode == 2 and "--result-limit cuts the tool results md and html draw" in p.stderr, p.stderr
    assert hashlib.sha256(data).hexdigest() == manifest["export"]["sha256"]


def test_a_render_51_copy_is_made_again_whole(roots, tmp_path):
    """A copy of render 51, before any cut, holds the result whole; its manifest has no result_limit: made again
    whole, it checks."""
    from asz_core.reading.export_manifest import line_digests
    from asz_core.reading.export_render import drawing

    root, _ = roots
    old = tmp_path / "old.md"
    with drawing(51):
        asz("export", SID[:8], "--out", str(old), "--root", str(root))
    assert SEQ in old.read_text()
    manifest = old.with_name("old.md.manifest.json")
    body = json.loads(manifest.read_text())
    body["made"].pop("result_limit")
    body["render"], data = 51, old.read_bytes()
    body["export"] = {**body["export"], "sha256": hashlib.sha256(data).hexdigest(), "lines": line_digests(data)}
    manifest.write_text(json.dumps(body))
    ok = asz("verify", "--export", str(old), "--root", str(root), check=False)
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
