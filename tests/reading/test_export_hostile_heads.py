"""Every export's head and index, and the readers' JSON and tables, hold no character that steers a terminal (trial
34c F4, F9, F10).

F4: the Markdown export's head lines (project/cwd, branch, models, the ``cost … unpriced (no price for MODEL)``
lines) and ``index.md``'s title column kept a transcript's raw ESC, BEL and CR, though docs/cli.md promises that no
window title, hidden link or clipboard write reaches a terminal that ``cat``s the file. F9: ``asz ls --json`` and
``asz conversation --json`` printed U+202E raw, and tables printed U+200B raw (two titles read alike). F10: a
Markdown export that keeps ``<script>``, ``javascript:`` links and remote images said nothing of them.

Real input: the corpus's de3b8b19 with the trial's hostile fields (its bin/mkhostile.py) planted in the cwd, the git
branch, the model and the first prompt (the title)."""

from __future__ import annotations

import json
import re

import pytest

from cli_helpers import asz_in_process
from reading_helpers import plant_heads, planted_root

TRANSCRIPT = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
ESC = "\x1b"
#: The trial's terminal payload: a window title (OSC 0), a colour, a hidden link (OSC 8), a line clear and a CR.
ANSI = (ESC + "]0;PWNED-TERMTITLE\x07" + ESC + "[31mRED" + ESC + "[0m " + ESC + "]8;;http://evil.example/" + ESC
        + "\\osc8link" + ESC + "]8;;" + ESC + "\\" + ESC + "[2K\r")
BIDI = "\u202eevil\u202c\u200bzw"
MODEL = "claude-<b>x</b><script>document.title='PWNED-MODEL'</script>" + ESC + "[31m"
ACTIVE = ('[clickme](javascript:document.title="PWNED") ![pixel](http://127.0.0.1:9/track.gif) '
          '<iframe src="http://127.0.0.1:9/frame"></iframe>')


def _plant(lines: list[dict]) -> None:
    prompt = next(o for o in lines if isinstance(o.get("message"), dict) and o["message"].get("role") == "user"
                  and isinstance(o["message"].get("content"), str))
    prompt["message"]["content"] = "zw\u200bTITLE " + ANSI + BIDI + " " + ACTIVE + " " + prompt["message"]["content"]
    plant_heads(lines, "/tmp/<script>x</script>" + ANSI, "<img src=x>" + ANSI, MODEL)


@pytest.fixture(scope="module")
def root(corpus_dir, tmp_path_factory):
    return planted_root(corpus_dir, tmp_path_factory.mktemp("hostile-heads"), TRANSCRIPT, _plant)


def _steering(data: str) -> list[str]:
    """The characters in ``data`` that steer a terminal: ESC, BEL, a CR not before LF, C1, the bidi overrides."""
    return [f"U+{ord(c):04X}" for i, c in enumerate(data)
            if c in "\x1b\x07" or (c == "\r" and data[i + 1:i + 2] != "\n") or 0x80 <= ord(c) < 0xA0
            or 0x202A <= ord(c) <= 0x202E or 0x2066 <= ord(c) <= 0x2069]


def _ok(*args: str) -> str:
    p = asz_in_process(*args)
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@pytest.mark.parametrize("form", [("md",), ("md", "--brief"), ("text",), ("html",), ("prose",), ("json",)])
def test_no_export_head_steers_a_terminal(root, tmp_path, form):
    out = tmp_path / "c.out"
    _ok("export", "de3b8b19", "--root", str(root), "--format", *form, "--out", str(out))
    data = out.read_text(encoding="utf-8")
    assert "PWNED-TERMTITLE" in data  # the planted fields are in the file
    assert _steering(data) == []
    shown = "\\x1b]0;PWNED-TERMTITLE\\x07RED \\x1b]8;;http://evil.example/\\x1b\\osc8link\\x1b]8;;\\x1b\\\\x0d"
    model = "claude-<b>x</b><script>document.title='PWNED-MODEL'</script>"
    if form[0] == "text":  # review34: the head's own lines, each the whole value on one line, its controls as escapes
        head = data.split("\n\n", 1)[0].split("\n")
        assert f"project: /tmp/<script>x</script>{shown}" in head and f"branch: <img src=x>{shown}" in head, head
        assert f"models: {model}" in head and f"cost_by_kind_line: unpriced (no price for {model})" in head, head
    if form[0] == "html":  # review34: the head's values escaped as HTML, the controls as their escapes, in the page
        escaped = shown.replace("<", "&lt;")  # the CR too (render 9: one rule for a line's value, fix36c)
        assert f"/tmp/&lt;script&gt;x&lt;/script&gt;{escaped}" in data and f"&lt;img src=x&gt;{escaped}" in data
        assert "<script>" not in data and "<img src=x>" not in data and "<b>x</b>" not in data
    if form[0] == "md":  # the head's project, branch, models and both unpriced lines, each one line, escaped
        head = data.split("\n## ", 1)[0]
        inert = model.replace("<", "\\<")  # render 9: no raw HTML a viewer runs, the text as written (fix36c)
        # render 8: a head line's backslash escaped where CommonMark reads it as an escape (before ASCII punctuation,
        # or ending the value); before a letter it stands for itself: the ST's backslash before \x0d is escaped
        lit = "".join("\\\\" if c == "\\" and shown[i + 1:i + 2] in ("", *"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~") else c
                      for i, c in enumerate(shown))
        assert lit.count("\\") == shown.count("\\") + 1
        assert f"- project /tmp/\\<script>x\\</script>{lit} on branch \\<img src=x>{lit}, " in head
        assert f"\n- models {inert}\n" in head and head.count(f"(no price for {inert})") == 2
        # F10: the texts' raw HTML, script link and remote image are said at the top, counted from the file
        warning = next(x for x in data.split("\n") if x.startswith("- **warning: active content:** "))
        assert data.split("\n")[2] == warning
        counts = dict(re.findall(r"(raw HTML|script or data link|remote image) ([0-9]+(?:,[0-9]{3})*)", warning))
        # the tags opened that can act: the head's project <script>, branch <img, the model's <script> on its line
        # and in both unpriced lines, and the prompt's <iframe>; its one javascript: link and one remote image (the
        # fenced tool inputs are code); the model's <b> (three times) is escaped, not counted (render 10, fix37b)
        assert counts == {"raw HTML": "6", "script or data link": "1", "remote image": "1"}


def test_the_folder_index_steers_no_terminal(root, tmp_path):
    for fmt in ("md", "text", "html"):
        out = tmp_path / fmt
        _ok("export", "--since", "2000-01-01", "--root", str(root), "--format", fmt, "--out", f"{out}/")
        index = (out / ("index.html" if fmt == "html" else "index.md")).read_text(encoding="utf-8")
        assert "PWNED-TERMTITLE" in index and _steering(index) == [], fmt
        if fmt != "html":
            row = next(x for x in index.split("\n") if "PWNED-TERMTITLE" in x and x.startswith("| "))  # its table's
            assert row.count(" | ") == 8  # the title and project cells stay one cell each (runtime's: render 57)


def test_json_and_tables_print_bidi_and_zero_width_as_escapes(root):
    rows = _ok("ls", "--json", "--root", str(root))
    assert "\u202e" not in rows and "\\u202e" in rows
    assert "PWNED-TERMTITLE" in json.loads(rows)[0]["title"] and "\u202e" in json.loads(rows)[0]["title"]
    doc = _ok("conversation", "de3b8b19", "--json", "--root", str(root))
    assert "\u202e" not in doc and "\u202e" in json.loads(doc)["summary"]["title"]
    table = _ok("ls", "--root", str(root))
    assert "\u200b" not in table and "zw\\u200bTITLE" in table and _steering(table) == []


#: An image's ``media_type`` is the transcript's word too (review34, after F4: it reached the md line ``[image: …]`` raw).
MIME = "image/png" + ESC + "]0;PWNED-MIME\x07"


def _image(lines: list[dict]) -> None:
    import base64

    prompt = next(o for o in lines if isinstance(o.get("message"), dict) and o["message"].get("role") == "user"
                  and isinstance(o["message"].get("content"), str))
    prompt["message"]["content"] = [{"type": "text", "text": prompt["message"]["content"]},
                                    {"type": "image", "source": {"type": "base64", "media_type": MIME,
                                                                 "data": base64.b64encode(b"\x89PNG\r\n").decode()}}]


def test_an_images_media_type_steers_no_terminal(corpus_dir, tmp_path):
    root = planted_root(corpus_dir, tmp_path, TRANSCRIPT, _image)
    for form in (("md",), ("md", "--brief"), ("html",), ("text",)):
        out = tmp_path / f"c-{'-'.join(form)}.out"
        _ok("export", "de3b8b19", "--root", str(root), "--format", *form, "--out", str(out))
        data = out.read_text(encoding="utf-8")
        assert "PWNED-MIME" in data and _steering(data) == [], (form, [x for x in data.split("\n") if "MIME" in x])
    assert "[image: image/png\\x1b]0;PWNED-MIME\\x07, 8 bytes, sha256 " in (tmp_path / "c-md.out").read_text()
