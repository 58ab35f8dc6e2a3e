"""``asz verify --export FILE`` of a copy with no manifest (trial 37c F2): an asz built before 2026-12-05 wrote none
beside an unmasked copy, and none is written beside a copy sent to stdout.

``old_copies/45209c25-55604662.md`` is the copy the trial's OLD tree (45209c25, 2026-12-02 04:13, ``asz 0.1.0``) wrote:
the corpus transcript ``claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl``, all 15
of its lines, collected by that tree (``asz collect --once --adapter claude-code-local``) and exported with ``TZ=UTC``
by ``asz export 55604662 --format md > FILE`` (no manifest). Its head (``- models: claude-opus-4-6``) is drawn by a rule
no render this asz draws gives, so with ``--root`` it is said to be unprovable (exit 2), naming its conversation and
the first line that differs, never as a changed copy; a copy this asz sent to stdout, masked or not, and one drawn as
render 8 draws it, are proved against the root with the render that matched (exit 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

from asz_core.cli.export_made import made_again
from asz_core.reading.export_render import RENDER, drawing

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
OLD = Path(__file__).parent / "old_copies" / "45209c25-55604662.md"


@pytest.fixture(scope="module")
def root(corpus_dir, tmp_path_factory):
    source = corpus_dir / "claude-code" / "projects" / "-home-user-spotter" / f"{SID}.jsonl"
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    base = tmp_path_factory.mktemp("unmanifested")
    (base / "projects" / "-home-user-spotter").mkdir(parents=True)
    (base / "projects" / "-home-user-spotter" / source.name).write_bytes(source.read_bytes())
    p = asz_in_process("collect", "--once", "--adapter", "claude-code-local", "--source", str(base / "projects"),
                       "--root", str(base / "root"))
    assert p.returncode == 0 and " records=15 " in p.stdout, p.stdout + p.stderr  # the source's 15 lines
    return base / "root"


def _verify(copy: Path, *more: str):
    return asz_in_process("verify", "--export", str(copy), *more, env={"TZ": "UTC"})


def test_an_old_copy_without_the_root_says_which_asz_wrote_none_and_who_can_check(tmp_path):
    copy = tmp_path / OLD.name
    copy.write_bytes(OLD.read_bytes())
    v = _verify(copy)
    assert v.returncode == 2, v.stdout + v.stderr
    said = " ".join(v.stderr.split())
    assert "session 29" not in said and "an asz built before 2026-12-05 (source 9436bebf" in said
    assert f"asz verify --export {copy} --root ROOT" in said


def test_an_old_copy_against_the_root_names_its_conversation_and_the_first_line_no_render_draws(root, tmp_path):
    copy = tmp_path / OLD.name
    copy.write_bytes(OLD.read_bytes())
    v = _verify(copy, "--root", str(root))
    assert v.returncode == 2, v.stdout + v.stderr
    said = " ".join(v.stderr.split())
    assert f"it is not what this asz draws of conversation {SID}" in said
    assert f"renders {RENDER} back to 1" in said and "problem(s)" not in v.stdout  # unprovable, never said as changed
    # the old head's line 4 as the copy holds it (the fixture's bytes), against render 1's (times in UTC) line
    line4 = OLD.read_bytes().split(b"\n")[3].decode()
    assert line4 == "- from 2026-02-10 21:11:52 to 2026-02-10 21:16:12, 2 talks, state verified"
    assert f"line 4: the copy has {line4!r}, this asz draws '- from 2026-02-10 21:11:52 to 2026-02-10 21:16:12 (times in UTC)" in said


def test_a_copy_sent_to_stdout_is_proved_against_the_root_with_its_render(root, tmp_path):
    redact = False  # this conversation holds no credential: its masked copy is the same bytes
    e = asz_in_process("export", SID[:8], "--root", str(root), "--format", "md", env={"TZ": "UTC"})
    assert e.returncode == 0, e.stderr
    copy = tmp_path / "sent.md"
    copy.write_text(e.stdout, encoding="utf-8")
    assert not Path(f"{copy}.manifest.json").exists()
    v = _verify(copy, "--root", str(root), "--json")
    assert v.returncode == 0, v.stdout + v.stderr
    got = json.loads(v.stdout)
    assert got["ok"] is True and got["manifest"] is None and got["against_root"] is True
    [line] = got["checked"]
    assert line.startswith(f"sent.md: no manifest: it is render {RENDER} of conversation {SID} as asz export "
                           f"{SID[:8]} --format md{' --redact' if redact else ''} draws it")
    assert "which head round" in got["not_checked"]
    copy.write_bytes(copy.read_bytes().replace(b"phx.server", b"phx.serveR", 1))  # one byte of a landed text
    assert _verify(copy, "--root", str(root)).returncode == 2


def test_a_copy_drawn_as_render_7_is_said_to_be_render_7(root, tmp_path):
    """Render 8 drew a person's words in html as written, render 7 as Markdown: this conversation's prompt
    (``mix phx.server …``) is drawn differently, so a render 7 html copy is told apart from this asz's."""
    with drawing(7):
        data, _ = made_again(root, SID, {"format": "html", "redact": False, "hide": [], "tz": "UTC"})
    with drawing(RENDER):
        now, _ = made_again(root, SID, {"format": "html", "redact": False, "hide": [], "tz": "UTC"})
    assert data != now
    copy = tmp_path / "seven.html"
    copy.write_bytes(data)
    v = _verify(copy, "--root", str(root))
    assert v.returncode == 0 and "no manifest: it is render 7 of conversation" in v.stdout, v.stdout + v.stderr
