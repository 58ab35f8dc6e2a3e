"""``asz export`` of conversations that do not verify, in every format and in a folder's index (trial 3, findings 2, 3).

Real input: the Claude Code corpus collected and parsed by the real ``asz collect --once`` (tests/conftest.py),
then two kinds of damage a person can do to a root: one number of a landed transcript changed in place (state
``mismatch``) and one landed transcript deleted (state ``incomplete``). Every format, prose too (which reads the
landed files without building the document), writes what is there, warns naming what is missing and exits 1; the
index page of a folder export marks the conversations that do not verify, as their own pages do.
"""

from __future__ import annotations

import html
import os
import re
import stat
from pathlib import Path

import pytest
from reading_helpers import asz

CHANGED = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
CUT = "cb2e607c-c758-415a-8b45-c49e4631906a"


@pytest.fixture(scope="module")
def damaged(corpus_copy) -> tuple[Path, Path]:
    """``(root, deleted file)``: CHANGED's main transcript has one output count changed, CUT's main transcript is gone."""
    root = corpus_copy()
    [path] = [p for p in sorted((root / CHANGED / "streams" / "main").glob("transcript-*.sd")) if b'"out":4658' in p.read_bytes()]
    os.chmod(path, stat.S_IRUSR | stat.S_IWUSR)
    path.write_bytes(path.read_bytes().replace(b'"out":4658', b'"out":9999'))
    os.chmod(path, stat.S_IRUSR)
    (gone,) = sorted((root / CUT / "streams" / "main").glob("transcript-*-000001.sd"))
    gone.unlink()
    return root, gone


@pytest.mark.parametrize("fmt", ["prose", "md", "html", "json"])
def test_export_of_an_incomplete_conversation_writes_warns_and_exits_1(damaged, tmp_path, fmt):
    """As for a changed file (tests/reading/test_damaged_evidence.py): written, warned, exit 1."""
    root, gone = damaged
    out = tmp_path / f"x.{fmt}"
    p = asz("export", CUT, "--format", fmt, "--out", str(out), "--root", str(root), check=False)
    assert p.returncode == 1, p.stderr
    assert out.exists() and out.stat().st_size > 0  # the rest of the conversation (its sub-agents) is written
    warnings = [ln for ln in p.stderr.splitlines() if ln.startswith(f"asz export: warning: {CUT} does not verify: ")]
    assert any(f"landed file seq 1 of session {CUT} is missing" in ln for ln in warnings), p.stderr
    assert f"asz export: warning: {CUT} was written without what is missing or does not verify" in p.stderr


@pytest.mark.parametrize("fmt,index", [("html", "index.html"), ("md", "index.md"), ("prose", "index.md")])
def test_the_index_of_a_folder_export_marks_what_does_not_verify(damaged, tmp_path, fmt, index):
    root, _ = damaged
    out = tmp_path / "out"
    p = asz("export", "--since", "2000-01-01", "--format", fmt, "--out", str(out), "--root", str(root), check=False)
    assert p.returncode == 1, p.stderr
    assert "exported 11 conversation(s)" in p.stderr and "2 do(es) not verify" in p.stderr
    text = (out / index).read_text(encoding="utf-8")
    assert "2 of 11 conversation(s) do not verify" in text
    if fmt == "html":
        rows = re.findall(r"<tr( class=\"failed\")?>(.*?)</tr>", text)  # a heading row is <tr class="head">
        assert len(rows) == 11
        marked = {re.search(r"<td class=\"id\">([^<]+)</td>", r).group(1): html.unescape(r) for cls, r in rows if cls}
        assert set(marked) == {CHANGED, CUT}
        assert '<td class="state">mismatch · <b>does not verify</b></td>' in marked[CHANGED]
        assert '<td class="state">incomplete · <b>does not verify</b></td>' in marked[CUT]
        assert text.count('<td class="state">verified</td>') == 9
    else:
        lines = [ln for ln in text.splitlines() if ln.startswith("| ") and (".md)" in ln or ".jsonl)" in ln)]
        assert len(lines) == 11
        assert [ln for ln in lines if "does not verify" in ln] == [ln for ln in lines if CHANGED in ln or CUT in ln]
        assert any("**mismatch: does not verify**" in ln and CHANGED in ln for ln in lines)
        assert any("**incomplete: does not verify**" in ln and CUT in ln for ln in lines)
        assert sum("| verified |" in ln for ln in lines) == 9

