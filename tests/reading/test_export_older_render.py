"""A copy made before the exports' rendering changed still checks against the root (``asz verify --export``): session
30 gave each tool call's heading its record's time (trial 30a F3) and the head the sessions it continues (F7), so a
copy an archivist made the day before read as changed in every tool line. The manifest now says its ``render`` (2);
one without the key is render 1, and the copy made again is brought back to it by removing only what render 2 added.

Real input: the corpus project -Users-alex-workspace-coderabbit-review-helper collected; its conversation cb2e607c
exported in md and html. A render-1 copy is made here as render 1 drew it: drawn as render 7 (render 8's escapes of
its raw HTML, ``\\<number>``, are not there), then the tool headings without their time (the html summary's ``when``
span, the md heading's ``· TIME``), its manifest without ``render``."""

from __future__ import annotations

from asz_core.reading.export_render import RENDER  # the render this asz writes (pinned by rule)

import json
import re

import pytest

from reading_helpers import as_copy, asz, collected_project

PROJECT = "-Users-alex-workspace-coderabbit-review-helper"
SID = "cb2e607c-c758-415a-8b45-c49e4631906a"
#: What render 1 drew where render 2 draws a tool call's time.
RENDER_1 = {"md": (re.compile(rb"^(\*\*Tool [^\n]*?\*\*(?: \(failed\))?) \xc2\xb7 [0-9 :+-]{19,25} \xc2\xb7 `", re.M), b"\\1 \xc2\xb7 `"),
            "html": (re.compile(rb' <span class="when">[^<]*</span>( <span class="id">tool/)'), rb"\1")}


@pytest.fixture(scope="module")
def root(corpus_source, tmp_path_factory):
    return collected_project(corpus_source, tmp_path_factory.mktemp("older-render"), PROJECT)


@pytest.mark.parametrize("form", ["md", "html"])
def test_a_copy_of_the_earlier_rendering_checks_and_a_changed_one_does_not(root, tmp_path, form):
    from asz_core.reading.export_render import drawing

    copy = tmp_path / f"c.{form}"
    with drawing(7):  # render 8 drew a person's words in html as written, render 9 md's raw HTML escaped (cb2e607c's '<number>'): neither is undone
        asz("export", SID[:8], "--format", form, "--out", str(copy), "--root", str(root))
    body = json.loads((tmp_path / f"c.{form}.manifest.json").read_bytes())
    assert body["render"] == RENDER  # render 3 (fix32d) adds an image's decoded digest: cb2e607c has no image; 4, 5, 6 the text form, 7 json and prose, 8 words as written, 9 the lines asz frames, 10 code spans in escaped md blocks, 11 the audit forms' errors, 12 the manifest lists only the masker's masks, 13 a folder md's link back and talk list, 14 the text form's pruned prompt label, 15 a refused call said refused (render 1 drew it failed), 16 each model call's tokens (drawn with drawing(7): none), 17 a stop hook's commands (none: cb2e607c has no stop hook summary), 18 a model call in no talk's steps (cb2e607c has none), 19 a replayed call named and an orphan sidechain step marked (none in cb2e607c), 20 a todo list, an edit and a file written drawn (drawn with drawing(7): as their fields), 21 an interrupt notice labelled and an unpriced call said (none in cb2e607c), 22 Kiro's edits as a diff (none), 23 a todo list's and an edit's one line (drawn with drawing(7): none), 24 a mask md wrote escaped listed (none in cb2e607c), 25 an orphan sidechain group said (none), 26 a resumed copy titled with the whole id it continues (cb2e607c continues none), 27 a sub-agent talk no call started headed as the page heads it (none), 28 an md talk list linked by its escaped heading and a folder's continuations linked (none), 29 a replayed call drawn once in the lines forms, a talk of copies said and the index's words (none in cb2e607c), 30 a compaction summary with no talk titled so (cb2e607c has talks), 31 a child stream no call names labelled by no reply (cb2e607c's Warmup agents open with their prompt: labelled as before), 32 a runtime-titled copy marked (continues ID) (none), 33 a copy with no call of its own said 0, counted in the one it continues, and the index's same-calls words (cb2e607c continues none), 34 a talk of copies naming the talks by number (none in cb2e607c), 35 a result whose call never landed, too large to land, drawn with its size and sha256 and the head's landed-without line (cb2e607c has no cut part), 36 the text form's pruned person turns labelled by what the skeleton tells and a removed error's size (cb2e607c is not pruned), 37 html draws the model's links to its project's files as text (drawn with drawing(7): live, as render 1 drew them), 38 a talk of copies lists its calls as drawn (none in cb2e607c)
    pattern, back = RENDER_1[form]
    older, n = pattern.subn(back, copy.read_bytes())
    assert n > 20  # cb2e607c's tool calls, each with its time in render 2
    old_body = {k: v for k, v in body.items() if k != "render"}
    ok = asz("verify", "--export", as_copy(tmp_path, f"old.{form}", older, old_body), "--root", str(root), check=False)
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
    # the same bytes said to be render 2: a tool heading without its time is a changed line
    bad = asz("verify", "--export", as_copy(tmp_path, f"now.{form}", older, body), "--root", str(root), check=False)
    assert bad.returncode == 1 and f"now.{form}: line " in bad.stdout, bad.stdout
    # a copy whose tool name was changed: without a render key, drawn by no rule this asz draws, so not checkable
    # (an asz of that time drew by rules revised many times: export_render.check_drawn), never changed; said to be
    # render 2, it fails
    from asz_core.reading.export_render import NOT_REPRODUCED

    forged = older.replace(b"Bash", b"Bosh", 1)
    assert forged != older
    odd = asz("verify", "--export", as_copy(tmp_path, f"x.{form}", forged, old_body), "--root", str(root), check=False)
    assert odd.returncode == 2 and NOT_REPRODUCED in odd.stdout and f"x.{form}: line " not in odd.stdout, odd.stdout
    bad = asz("verify", "--export", as_copy(tmp_path, f"y.{form}", forged, {**old_body, "render": 2}), "--root",
              str(root), check=False)
    assert bad.returncode == 1 and f"y.{form}: line " in bad.stdout, bad.stdout


def test_a_text_copy_made_before_its_texts_were_quoted_checks(root, tmp_path):
    """Render 4 (trial 34c F1) quotes the text form's texts (``| `` before each line) and says so in the header's last
    line; a render-3 copy, as it was drawn (no quotes, no such line), still checks, and the same bytes said to be
    render 4 do not."""
    from asz_core.reading.export_render import drawing

    copy = tmp_path / "c.txt"
    with drawing(10):  # render 11 added the audit form's errors: drawn before them, as a render-3 copy was
        asz("export", SID[:8], "--format", "text", "--out", str(copy), "--root", str(root))
    body = json.loads((tmp_path / "c.txt.manifest.json").read_bytes())
    now = copy.read_bytes()
    assert body["render"] == RENDER and b'\ntexts: quoted, every line of a text begins with "| "' in now
    older, n = re.subn(rb"^\| ?", b"", re.sub(rb"^texts: quoted, [^\n]*\n", b"", now, flags=re.M), flags=re.M)
    assert n > 20 and older.count(b"\n[") > 10  # cb2e607c's lines, each with its text
    ok = asz("verify", "--export", as_copy(tmp_path, "old.txt", older, {**body, "render": 3}), "--root", str(root),
             check=False)
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
    bad = asz("verify", "--export", as_copy(tmp_path, "now.txt", older, body), "--root", str(root), check=False)
    assert bad.returncode == 1 and "now.txt: line " in bad.stdout, bad.stdout
