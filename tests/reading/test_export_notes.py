"""An export carries the problems of a conversation that verifies all the same, as ``asz conversation`` and the page
say them (trial 3, F8). Real input: the corpus collected by the real ``asz collect --once``; its session 8463c716
cites a tool result saved to ``tool-results/toolu_019CpL49DWBenUxVVCWEXz3L.txt``, a companion file the corpus does
not hold (its source folder has only ``subagents/``)."""

from __future__ import annotations

from pathlib import Path

from reading_helpers import asz

SID = "8463c716"
PROBLEM = ("missing companion file tool-results/toolu_019CpL49DWBenUxVVCWEXz3L.txt: the result holds only a preview; "
           "the full output did not land")


def test_md_and_html_exports_say_the_missing_companion_file(corpus_collected: Path, corpus_dir: Path, tmp_path: Path):
    source = corpus_dir / "claude-code" / "projects" / "-home-user-spotter" / "8463c716-a2ea-4c14-9efa-87158ebd9f20"
    assert "toolu_019CpL49DWBenUxVVCWEXz3L" in (source.parent / f"{source.name}.jsonl").read_text(encoding="utf-8")
    assert not (source / "tool-results").exists()
    c = asz("conversation", SID, "--root", str(corpus_collected))
    assert f"problem: {PROBLEM}" in c.stdout.splitlines() and "state verified" in c.stdout
    md = asz("export", SID, "--root", str(corpus_collected)).stdout
    assert f"- **problem:** {PROBLEM}" in md.splitlines()[:12]
    out = tmp_path / "c.html"
    asz("export", SID, "--format", "html", "--root", str(corpus_collected), "--out", str(out))
    page = out.read_text(encoding="utf-8")
    assert f"<b>Its rounds verify, but asz found problems:</b><ul><li>{PROBLEM}</li></ul>" in page
