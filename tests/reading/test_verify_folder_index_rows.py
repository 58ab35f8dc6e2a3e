"""``asz verify --export DIR`` reads an md or html index's rows too (trial 31b F2 left, fix32d: only a json index's
rows were held to the copies, an md or html index by its digest alone): each row links the copies the folder manifest
lists for one conversation, one row a conversation; with ``--root`` its talks, tokens, cost and state are the
conversation's as of its copy's round.

Input: the corpus collected (11 conversations) exported as md and as html folders; the figures an index row shows are
compared with the json index's row of the same conversation (the figures the json check already holds to the copies)."""

from __future__ import annotations

import json
import shutil

import pytest

from reading_helpers import asz, asz_process

SID = "55604662-cf2a-4331-851a-ec234028f8ca"


@pytest.fixture(scope="module")
def folders(corpus_root, tmp_path_factory):
    base = tmp_path_factory.mktemp("index-rows")
    for fmt in ("md", "html", "json"):
        asz("export", "--since", "2000-01-01", "--format", fmt, "--out", str(base / fmt), "--root", str(corpus_root))
    return corpus_root, base


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_an_md_or_html_index_is_read_row_by_row(folders, fmt):
    root, base = folders
    alone = asz("verify", "--export", str(base / fmt)).stdout.splitlines()
    assert "ok: the index's 11 row(s) link the copies the folder manifest lists, one row a conversation, and name those " \
           "not exported as it does" in alone
    assert "not checked: that each copy's text is the landed one, and that the index's figures (talks, tokens, cost, " \
           "state) are the conversations': the root's holder checks it (asz verify --export DIR --root ROOT)" in alone
    full = asz("verify", "--export", str(base / fmt), "--root", str(root)).stdout.splitlines()
    assert "ok: the index's figures (talks, tokens, cost, state) of 11 conversation(s) are their documents' as of each " \
           "copy's round" in full
    assert full[-1] == "the folder checks against the root"


def _json_row(base, sid: str) -> dict:
    return next(r for r in json.loads((base / "json" / "index.json").read_bytes()) if r["id"] == sid)


def test_a_changed_md_row_is_named_against_the_root(folders, tmp_path):
    root, base = folders
    bad = tmp_path / "md"
    shutil.copytree(base / "md", bad)
    want = _json_row(base, SID)
    tokens = sum(want["usage"][k] for k in ("in", "out", "cache_read", "cache_write"))  # cache_write_1h is in cache_write
    cost = f"${want['cost']['usd']:,.2f}"
    page = (bad / "index.md").read_text()
    line = next(x for x in page.splitlines() if f"[{SID}.md]" in x)
    assert f"| {want['talks']} | {tokens:,} | {cost} | verified |" in line  # the md row shows the json row's figures
    page = page.replace(line, line.replace(f"| {want['talks']} | {tokens:,} | {cost} |", f"| {want['talks'] + 1} | "
                                           f"{tokens + 5:,} | {cost} |"))
    rows = page.splitlines()
    gone = next(k for k, x in enumerate(rows) if x.startswith("| ") and SID not in x and ".md)" in x)
    del rows[gone]  # another conversation's row removed
    (bad / "index.md").write_text("\n".join(rows) + "\n")
    alone = asz("verify", "--export", str(bad), check=False)
    assert alone.returncode == 1
    assert f"{bad.name}/index.md: 10 row(s), the folder manifest 11 conversation(s) with copies and 0 not exported" in alone.stdout
    full = asz("verify", "--export", str(bad), "--root", str(root), check=False)
    lines = full.stdout.splitlines()
    k = next(n for n, x in enumerate(l for l in rows if l.startswith("| ") and ".md)" in l) if SID in x) + 1
    assert f"{bad.name}/index.md: row {k} ({SID}): talks {want['talks'] + 1}, the conversation's {want['talks']} (its " \
           "document as of its copy's round)" in lines
    assert f"{bad.name}/index.md: row {k} ({SID}): tokens {tokens + 5:,}, the conversation's {tokens:,} (its document " \
           "as of its copy's round)" in lines
    assert full.returncode == 1 and lines[-1].endswith("problem(s)")


def test_an_html_row_naming_another_conversation_is_named_without_the_root(folders, tmp_path):
    _, base = folders
    bad = tmp_path / "html"
    shutil.copytree(base / "html", bad)
    page = (bad / "index.html").read_text()
    other = next(r["id"] for r in json.loads((base / "json" / "index.json").read_bytes()) if r["id"] != SID)
    at = page.index(f'<td class="id">{SID}</td>')
    (bad / "index.html").write_text(page[:at] + f'<td class="id">{other}</td>' + page[at + len(f'<td class="id">{SID}</td>'):])
    p = asz("verify", "--export", str(bad), check=False)
    assert p.returncode == 1
    assert any(x.startswith(f"{bad.name}/index.html: row ") and f"({other}): it links {SID}.html, not the copies the "
               "folder manifest lists for one conversation" in x for x in p.stdout.splitlines()), p.stdout


def test_the_copies_checked_by_two_workers_say_what_one_process_says(folders, tmp_path):
    """With --root each copy is drawn again, in two worker processes (``--jobs``, default one per CPU; session 49, trial
    49b F3): every line and the exit code are those of ``--jobs 1``, for a whole folder and for one with a changed copy."""
    root, base = folders
    bad = tmp_path / "html"
    shutil.copytree(base / "html", bad)
    page = bad / f"{SID}.html"
    at = next(i for i, x in enumerate(page.read_bytes().split(b"\n"), 1) if b"</body>" in x)  # the line changed
    page.write_bytes(page.read_bytes().replace(b"</body>", b"<p>added</p></body>", 1))
    said = {}
    for where in (base / "html", bad):
        for jobs in ("1", "2"):
            p = asz_process("verify", "--export", str(where), "--root", str(root), "--jobs", jobs, check=False)
            said[where.name, jobs, where == bad] = (p.returncode, p.stdout)
    assert said["html", "2", False] == said["html", "1", False] and said["html", "1", False][0] == 0
    assert said["html", "2", True] == said["html", "1", True] and said["html", "1", True][0] == 1
    assert "ok: 11 of 11 copies check against the root" in said["html", "2", False][1].splitlines()
    lines = said["html", "2", True][1].splitlines()
    assert "ok: 10 of 11 copies check against the root" in lines
    assert f"html/{SID}.html: line {at}: changed since the manifest was written, outside any mask: '<p>added</p></body></html>'" \
        in lines
