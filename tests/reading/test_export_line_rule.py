"""One rule for a value inside one line of an export (render 9; fix36c item 1, left by fix35a).

fix35a made ``termsafe.line_value`` the rule for a value inside a line asz prints on a terminal, but the exports'
heads, headings and index cells kept tabs and zero-width characters raw (``md_line``), and the html head kept a CR
raw: a planted title, cwd, branch or model hid characters in the line or read alike to another. Now every such line
of md, md --brief, text and html, and every cell of a folder export's index.md and index.html, goes through
``termtext.md_line`` (``line_value`` after the terminal formatting is removed): ``\\t``, ``\\u200b``, ``\\x0d`` (in md
with its backslash doubled, render 8's rule for a backslash in a head line). A copy made at render 8 is drawn again
as render 8 drew it, so it still checks (``asz verify --export``).

Real input: the corpus's de3b8b19 with a tab, zero-width characters (U+200B, U+2060, U+FEFF) and a CR planted in its
cwd, git branch, model and first prompt (the title), collected by the real ``asz collect``.
"""

from __future__ import annotations

from asz_core.reading.export_render import RENDER  # the render this asz writes (pinned by rule)

import json

import pytest

from cli_helpers import asz_in_process
from reading_helpers import plant_heads, planted_root

TRANSCRIPT = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
CWD = "/tmp/pro\tject\u200b\u2060\rX"
BRANCH = "main\ufeff\tb\r"
MODEL = "claude\tsonnet\u200b"
TITLE = "TITLE\u200bzw\u2060 "
#: How each planted value reads in a line of an export (render 9; in md each backslash doubled, render 8).
CWD_SHOWN = "/tmp/pro\\tject\\u200b\\u2060\\x0dX"
BRANCH_SHOWN = "main\\ufeff\\tb\\x0d"
MODEL_SHOWN = "claude\\tsonnet\\u200b"
#: The characters no line asz frames may hold raw.
HIDDEN = ("\t", "\u200b", "\u2060", "\ufeff", "\r")


def _plant(lines: list[dict]) -> None:
    prompt = next(o for o in lines if isinstance(o.get("message"), dict) and o["message"].get("role") == "user"
                  and isinstance(o["message"].get("content"), str))
    prompt["message"]["content"] = TITLE + prompt["message"]["content"]
    plant_heads(lines, CWD, BRANCH, MODEL)


@pytest.fixture(scope="module")
def root(corpus_dir, tmp_path_factory):
    return planted_root(corpus_dir, tmp_path_factory.mktemp("line-rule"), TRANSCRIPT, _plant)


def _ok(*args: str) -> str:
    p = asz_in_process(*args)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


def _head(form: str, data: str) -> str:
    """The lines asz frames before the first talk: md up to its first ``## ``, text its header, html up to its talks."""
    if form == "md":
        return data.split("\n## ", 1)[0]
    if form == "text":
        return data.split("\n\n", 1)[0]
    return data.split("<nav", 1)[0].split("<h2", 1)[0]


def _md(value: str) -> str:
    """``value`` as an md head line or index cell writes it (render 8, md_literal): a backslash written before each
    backslash that CommonMark would read as an escape, one before ASCII punctuation or ending the value; one before
    anything else (``\\u200b``, ``\\t``) stands for itself and is left."""
    out = []
    for i, c in enumerate(value):
        nxt = value[i + 1:i + 2]
        out.append("\\\\" if c == "\\" and (nxt == "" or (nxt.isascii() and not nxt.isalnum() and not nxt.isspace())) else c)
    return "".join(out)


@pytest.mark.parametrize("form", [("md",), ("md", "--brief"), ("text",), ("html",)])
def test_every_head_line_shows_tabs_zero_width_characters_and_crs(root, tmp_path, form):
    out = tmp_path / "c.out"
    _ok("export", "de3b8b19", "--root", str(root), "--format", *form, "--out", str(out))
    data = out.read_text(encoding="utf-8")
    head = _head(form[0], data)
    w = _md if form[0] == "md" else str
    assert [c for c in HIDDEN if c in head] == [], (form, head)  # before: the tab, U+200B, U+2060, U+FEFF raw
    assert w(CWD_SHOWN) in head and w(BRANCH_SHOWN) in head and w(MODEL_SHOWN) in head, head
    assert w("TITLE\\u200bzw\\u2060") in head, head  # the title, from the prompt
    if form[0] == "html":  # before: the cwd's and branch's CR stood raw in the page's head
        assert "\r" not in data.split("<main>", 1)[1].split("<h2", 1)[0] and "<title>TITLE\\u200bzw\\u2060" in data
    if form == ("md",):  # the body's talk heading is such a line too; the prompt's text is the landed one
        heading = next(x for x in data.split("\n") if x.startswith("## Talk 1: "))
        assert "\u200b" not in heading and w("TITLE\\u200bzw\\u2060") in heading, heading
        assert TITLE in data.split("\n## ", 1)[1]


def test_the_folder_index_cells_show_them(root, tmp_path):
    for fmt in ("md", "html"):
        out = tmp_path / fmt
        _ok("export", "--since", "2000-01-01", "--root", str(root), "--format", fmt, "--out", f"{out}/")
        index = (out / f"index.{fmt}").read_text(encoding="utf-8")
        w = _md if fmt == "md" else str
        assert [c for c in HIDDEN if c in index] == [], (fmt, index)
        assert w("TITLE\\u200bzw\\u2060") in index and w(CWD_SHOWN) in index, index


@pytest.mark.parametrize("fmt", ["md", "text", "html"])
def test_a_render_8_copy_still_checks(root, tmp_path, fmt):
    """A copy drawn as render 8 drew it (the planted values' tabs and zero-width characters raw in its lines; in html
    the CR too) checks against the root with a manifest saying render 8, and fails as render 9."""
    from asz_core.reading.export_render import drawing

    old = tmp_path / f"old.{fmt}"
    with drawing(8):
        _ok("export", "de3b8b19", "--root", str(root), "--format", fmt, "--out", str(old))
    manifest = tmp_path / f"old.{fmt}.manifest.json"
    body = json.loads(manifest.read_bytes())
    assert body["render"] == RENDER
    assert "\t" in _head(fmt, old.read_text(encoding="utf-8"))  # as render 8 drew it: the tab raw
    manifest.write_text(json.dumps({**body, "render": 8}))
    ok = asz_in_process("verify", "--export", str(old), "--root", str(root))
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
    manifest.write_text(json.dumps(body))  # the same bytes said to be render 9: changed lines
    bad = asz_in_process("verify", "--export", str(old), "--root", str(root))
    assert bad.returncode == 1 and f"old.{fmt}: line " in bad.stdout, bad.stdout
