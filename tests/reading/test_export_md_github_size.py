"""md files past the size GitHub renders a Markdown file up to (512 KB) are said on stderr, naming the way to a smaller
file (trial 37a F5: each 613,070-byte spotter-fum conversation showed as raw text in the team's repository and asz
said nothing). One warning line for all the files written, each named with its size; none for html or a file under
the limit.

Real input: the corpus collected (tests/conftest.py); which files pass 524,288 bytes is read with os.stat from what
was written, never from asz's words."""

from __future__ import annotations

from reading_helpers import asz

LIMIT = 512 * 1024


def _warning(stderr: str) -> list[str]:
    return [x for x in stderr.splitlines() if "GitHub shows a Markdown file as raw text" in x]


def test_a_folder_export_names_each_md_file_over_the_limit(corpus_root, tmp_path):
    out = tmp_path / "week"
    p = asz("export", "--since", "2000-01-01", "--out", str(out), "--root", str(corpus_root))
    big = sorted(((f, f.stat().st_size) for f in out.glob("*.md") if f.stat().st_size > LIMIT), key=lambda x: -x[1])
    assert big, "the corpus holds a conversation whose md passes 512 KB (8463c716)"
    said = _warning(p.stderr)
    assert len(said) == 1
    assert said[0].startswith(f"asz export: warning: {len(big)} md file(s) written are over 512 KB (524,288 bytes), ")
    assert all(f"{f} ({n:,} bytes)" in said[0] for f, n in big)
    assert "--brief writes the brief form" in said[0] and "--format html" in said[0]
    small = [f for f in out.glob("*.md") if f.stat().st_size <= LIMIT]
    assert small and not any(f.name in said[0] for f in small)


def test_one_file_of_several_and_html(corpus_root, tmp_path):
    one = tmp_path / "all.md"
    p = asz("export", "--since", "2000-01-01", "--out", str(one), "--root", str(corpus_root))
    assert one.stat().st_size > LIMIT
    assert _warning(p.stderr) and f"{one} ({one.stat().st_size:,} bytes)" in _warning(p.stderr)[0]
    html = asz("export", "--since", "2000-01-01", "--format", "html", "--out", str(tmp_path / "h"), "--root",
               str(corpus_root))
    assert not _warning(html.stderr)


def test_the_brief_form_under_the_limit_is_not_warned(corpus_root, tmp_path):
    out = tmp_path / "brief"
    p = asz("export", "--since", "2000-01-01", "--brief", "--out", str(out), "--root", str(corpus_root))
    sizes = [f.stat().st_size for f in out.glob("*.md") if f.name != "index.md"]
    assert sizes and max(sizes) <= LIMIT and not _warning(p.stderr)
