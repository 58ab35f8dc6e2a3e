"""Transcript text printed by ``asz ls``, ``asz conversation`` and ``asz search`` never steers the terminal (trial 3,
F4/F19): ESC (OSC window titles), BEL, NUL, C1 and the bidi overrides are written as visible escapes, before
any cut to a column width; terminal formatting (a whole CSI sequence: colour, screen clear) is removed, as a reader
expects of Claude Code's command output (the user report of 2026-12-03). A session of the real corpus gets an odd line appended, and an odd session beside it
opens with the same odd prompt (its title)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from asz_core.reading.termtext import UNSAFE, md_visible, plain, visible, visible_spans

from reading_helpers import asz

SESSION = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"
ODD_ID = "ffffffff-0000-4000-8000-000000000006"
#: An OSC window title, a colour CSI, a screen clear, NUL, a C1 CSI and a right-to-left override.
ODD = "hello \x1b]0;PWNED-TITLE\x07\x1b[31mRED\x1b[0m \x1b[2J cleared \x00 nul \x9b31m c1 \u202e reversed zzoddword"
ODD_SHOWN = "hello \\x1b]0;PWNED-TITLE\\x07RED  cleared \\x00 nul \\x9b31m c1 \\u202e reversed zzoddword"

#: A remote image (a tracker when the page is shared) and one in the text itself.
IMAGES = "see ![p](https://tracker.example/p.png) and ![dot](data:image/png;base64,iVBORw0KGgo=)"


def _unsafe(text: str) -> list[str]:
    return [hex(ord(c)) for c in text if ord(c) in UNSAFE]


@pytest.fixture(scope="module")
def odd_root(corpus_dir: Path, tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("odd")
    src_project = corpus_dir / "claude-code" / "projects" / "-Users-alex-workspace-claude-code-log-sample"
    project = base / "src" / "-odd"
    project.mkdir(parents=True)
    lines = (src_project / f"{SESSION}.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert first["type"] == "user"
    last = json.loads(lines[-1])
    tail = dict(first, parentUuid=last.get("uuid"), uuid="11111111-2222-4333-8444-555555555551",
                timestamp="2026-07-01T00:00:00Z", message={"role": "user", "content": ODD})
    # the images in the agent's reply, which is Markdown (a person's prompt is drawn as written since render 8)
    said = json.loads(next(x for x in lines if json.loads(x).get("type") == "assistant"))
    image = dict(said, parentUuid=tail["uuid"], uuid="11111111-2222-4333-8444-555555555553", timestamp="2026-07-01T00:00:01Z",
                 requestId="req_images0000000000000000", message=dict(said["message"], id="msg_images0000000000000000",
                                                                      content=[{"type": "text", "text": IMAGES}]))
    (project / f"{SESSION}.jsonl").write_text("\n".join(lines + [json.dumps(tail), json.dumps(image)]) + "\n", encoding="utf-8")
    odd = dict(first, sessionId=ODD_ID, uuid="11111111-2222-4333-8444-555555555552", timestamp="2026-07-01T00:00:00Z",
               message={"role": "user", "content": ODD})
    (project / f"{ODD_ID}.jsonl").write_text(json.dumps(odd) + "\n", encoding="utf-8")
    root = base / "root"
    asz("collect", "--once", "--source", str(base / "src"), "--root", str(root))
    return root


def test_visible_escapes_exactly_the_unsafe_characters():
    assert visible(ODD) == ODD_SHOWN
    assert visible("Grüße 日本語 עברית \\ tab\tnl\n") == "Grüße 日本語 עברית \\ tab\tnl\n"
    assert visible("\u2066a\u2069\u202a\x7f\x85") == "\\u2066a\\u2069\\u202a\\x7f\\x85"
    text, spans = visible_spans("a\x1bb\u202ec", [[2, 3], [4, 5]])
    assert text == "a\\x1bb\\u202ec" and [text[a:b] for a, b in spans] == ["b", "c"]
    text, spans = visible_spans("\x1b[1mbold\x1b[22m and \x1b[31mred\x1b[0m", [[4, 8], [23, 26]])
    assert text == "bold and red" and [text[a:b] for a, b in spans] == ["bold", "red"]
    assert visible("a\x1b[1mb", json=True) == "a\\u001b[1mb"  # JSON keeps every byte
    assert plain("\x1b[?2026h\x1b[1mContext Usage\x1b[22m\x1b]0;t\x07") == "Context Usage\x1b]0;t\x07"  # an OSC stays
    # Markdown (trial 27c, F3): as visible, but a CR ending a line before its LF stays; a lone CR is escaped
    assert md_visible(ODD) == ODD_SHOWN
    assert md_visible("a\r\nb\rHIDDEN\r") == "a\r\nb\\x0dHIDDEN\\x0d"


@pytest.mark.slow  # the module's root is collected first (over 10 s on a loaded machine)
def test_ls_shows_the_title_escaped_and_cut_after(odd_root: Path):
    out = asz("ls", "--root", str(odd_root)).stdout
    row = next(line for line in out.splitlines() if line.startswith(ODD_ID[:8]))
    assert _unsafe(out) == []
    title = row[10:10 + 34]
    # the 34-cell column holds the escaped text, whitespace made one space, cut after escaping at a word's end
    assert title.rstrip() == "hello \\x1b]0;PWNED-TITLE\\x07RED…"


@pytest.mark.slow  # the module's root is collected first (over 10 s on a loaded machine)
def test_conversation_prints_the_title_escaped(odd_root: Path):
    out = asz("conversation", ODD_ID[:8], "--root", str(odd_root), check=False).stdout
    assert f"conversation {ODD_ID}: {ODD_SHOWN}" in out.splitlines()
    assert _unsafe(out) == []


@pytest.mark.slow  # the module's root is collected first (over 10 s on a loaded machine)
def test_conversation_yaml_escapes_what_its_json_escapes(odd_root: Path):
    """``--yaml`` printed U+202E raw where ``--json`` wrote ``\\u202e`` (trial 42a F7; docs/security.md): both
    print no unsafe character, and the YAML reads back to the JSON's values, the odd prompt whole among them."""
    got = {form: asz("conversation", ODD_ID[:8], f"--{form}", "--root", str(odd_root), check=False) for form in ("yaml", "json")}
    assert {form: r.returncode for form, r in got.items()} == {"yaml": 0, "json": 0}
    assert _unsafe(got["yaml"].stdout) == [] and _unsafe(got["json"].stdout) == []
    assert "\\u202E reversed zzoddword" in got["yaml"].stdout and "\\e]0;PWNED-TITLE\\a" in got["yaml"].stdout
    doc = yaml.safe_load(got["yaml"].stdout)
    assert doc == json.loads(got["json"].stdout)
    assert doc["summary"]["title"] == ODD


@pytest.mark.slow  # the module's root is collected first (over 10 s on a loaded machine)
def test_search_prints_snippet_and_title_escaped(odd_root: Path):
    out = asz("search", "zzoddword", "--root", str(odd_root)).stdout
    assert _unsafe(out) == []
    assert out.count("\\x1b]0;PWNED-TITLE\\x07") == 3  # both snippets, and the odd session's title line
    assert "«zzoddword»" in out
    hits = [line for line in out.splitlines() if line.startswith((SESSION[:8], ODD_ID[:8]))]
    assert sorted(h[:8] for h in hits) == sorted([SESSION[:8], ODD_ID[:8]])


@pytest.mark.slow  # the module's root is collected first (over 10 s on a loaded machine)
def test_html_export_isolates_the_title_and_shows_controls_as_the_body_does(odd_root: Path, tmp_path: Path):
    out = tmp_path / "odd.html"
    asz("export", ODD_ID[:8], "--format", "html", "--root", str(odd_root), "--out", str(out), check=False)
    page = out.read_text(encoding="utf-8")
    assert f"<title>{ODD_SHOWN}</title>" in page  # no markup in a <title>: escapes, as the terminal shows them
    assert f"<h1 dir=\"auto\"><bdi>{ODD_SHOWN}</bdi></h1>" in page  # and so in the heading and the body
    assert ": <bdi>hello \\x1b]0;PWNED-TITLE\\x07RED cleared" in page.split("<h2", 1)[1].split("</h2>")[0]  # the talk's label
    assert "\x00" not in page
    head = page.split("<body>")[0]
    assert "\u202e" not in head and "\x1b" not in head


@pytest.mark.slow  # the module's root is collected first (over 10 s on a loaded machine)
def test_md_export_to_a_file_writes_controls_as_escapes(odd_root: Path, tmp_path: Path):
    """A Markdown export written to a file holds no OSC, BEL or NUL (trial 27c, F3: ``cat`` of the file retitled the
    terminal): the title, the talk's label and the prompt read as the terminal commands print them."""
    out = tmp_path / "odd.md"
    asz("export", ODD_ID[:8], "--format", "md", "--root", str(odd_root), "--out", str(out), check=False)
    md = out.read_text(encoding="utf-8")
    assert _unsafe(md) == [] and f"# {ODD_SHOWN}\n" in md and f"\n{ODD_SHOWN}\n" in md
    assert "## Talk 1: hello \\x1b]0;PWNED-TITLE\\x07RED cleared" in md


@pytest.mark.slow  # the module's root is collected first (over 10 s on a loaded machine)
def test_text_export_writes_controls_as_escapes(odd_root: Path, tmp_path: Path):
    """``--format text`` (the audit form as plain text) holds no OSC, BEL or NUL either (recheck 27, NEW-1: 9 OSC and
    12 CSI sequences went raw to stdout), and ``asz verify --export`` still finds the copy the root's own."""
    out = tmp_path / "odd.txt"
    asz("export", ODD_ID[:8], "--format", "text", "--root", str(odd_root), "--out", str(out), check=False)
    text = out.read_text(encoding="utf-8")
    assert _unsafe(text) == [] and f"\n| {ODD_SHOWN}\n" in text  # a text's lines quoted (trial 34c F1)
    assert asz("verify", "--export", str(out), "--root", str(odd_root), check=False).returncode == 0


@pytest.mark.slow
def test_html_export_fetches_no_remote_image(odd_root: Path, tmp_path: Path):
    """A Markdown image from elsewhere in the agent's reply becomes a link (trial 3, F20): a viewer that ignores the
    CSP fetches nothing."""
    out = tmp_path / "s.html"
    asz("export", SESSION[:8], "--format", "html", "--root", str(odd_root), "--out", str(out), check=False)
    page = out.read_text(encoding="utf-8")
    assert '<a class="image" href="https://tracker.example/p.png">[image: p]</a>' in page
    assert '<img src="data:image/png;base64,iVBORw0KGgo=" alt="dot">' in page
    assert 'src="https:' not in page and "src='https:" not in page
