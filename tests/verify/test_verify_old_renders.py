"""Copies the older asz trees drew check against the root with this asz (``asz verify --export``; trial 39c F1, F2).

``old_renders/rN/`` holds what the tree that drew render N wrote for the bundled example (its conversation 7d2f1c3e,
``make_old_renders.py`` says how): render 1 and render 2 unnumbered (``r1``, ``r2u``: no ``render`` key, the second
with the tool times; both manifests alike), render 2 and render 3 before f7840f1b (``r2``, ``r3e``: the cost lines
before it, ``$0.00*``), render 3 (md, html: render 4 added the md warning line), 7 (md, html, json: render 8
drew a person's words as written and gave html the ``.said`` style rule, which the trial's render-5 html failed on at
its line 9), 8 (md: render 9 escaped the framed lines), 9 (md: render 10's code spans) and 12 (a folder's md: render 13
linked it back to its index). Each manifest is pointed at a root this asz collects from the same example (its
conversations' landed files and head round are this root's; the copy, its SHA-256, render and masks are as the old
tree wrote them), so what is compared is the drawing. The json of render 7 lacks ``summary.calls_by_tool[].refused``
(session 38): it checks, said so, and a copy with a key of its own put in fails naming that key, not a changed text."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

from asz_core.reading.export_render import RENDER

HERE = Path(__file__).parent / "old_renders"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "claude-code" / "projects"
COPIES = [("r1", "c.md"), ("r1", "c.html"), ("r2u", "c.md"), ("r2u", "c.html"), ("r2", "c.md"), ("r3e", "c.md"),
          ("r3e", "c.html"), ("r3", "c.md"), ("r3", "c.html"), ("r7", "c.md"), ("r7", "c.html"), ("r7", "c.json"),
          ("r8", "c.md"), ("r9", "c.md"), ("r12", "folder/7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35.md")]
#: The render key each folder's manifests hold (None: none).
RENDER_KEY = {"r1": None, "r2u": None, "r2": 2, "r3e": 3, "r3": 3, "r7": 7, "r8": 8, "r9": 9, "r12": 12}
#: The copies this asz draws otherwise now: said to be of this render, each fails (render 12's folder md names no
#: index in its manifest, so render 13 drew it as it was; render 16 adds each model call's tokens, so it differs now).
DIFFER = {(f, n) for f, n in COPIES if n != "c.json"}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    if not EXAMPLE.is_dir():
        pytest.skip(f"{EXAMPLE} is absent")
    base = tmp_path_factory.mktemp("old-renders")
    shutil.copytree(EXAMPLE, base / "projects")
    p = asz_in_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    assert p.returncode == 0 and " records=14 " in p.stdout, p.stdout + p.stderr  # the example's 9 + 5 lines
    return base / "root"


def _copy(root: Path, tmp: Path, r: str, name: str, data: bytes | None = None, **body) -> Path:
    """The fixture ``R/NAME`` (or ``data`` in its place) in ``tmp`` with its manifest pointed at ``root`` (and
    ``body``'s keys)."""
    from asz_core.reading.export import build
    from asz_core.reading.export_manifest import evidence, line_digests, sha256

    src = HERE / r / name
    dest = tmp / r / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    for sib in src.parent.iterdir():  # a folder copy's index beside it
        shutil.copyfile(sib, dest.parent / sib.name)
    manifest = json.loads(src.with_name(src.name + ".manifest.json").read_bytes())
    was, manifest["conversations"] = manifest["conversations"], [evidence(build(root, c["conversation"], []))
                                                                 for c in manifest["conversations"]]
    if name.endswith(".json") and data is None:  # the document names its landed files and head round: this root's
        data, now = src.read_bytes(), build(root, was[0]["conversation"], [])
        a, b = was[0], manifest["conversations"][0]
        old_doc = json.loads(data)
        old_round = old_doc["rounds"][0]["input_digest"]
        sized = [(f'"bytes":{f["bytes"]},"digest":"{f["digest"]}"', f'"bytes":{g["bytes"]},"digest":"{g["digest"]}"')
                 for f, g in zip(old_doc["files"], now["files"])]  # a landed file's size holds its landing time's digits
        for x, y in [*sized, (a["head"]["digest"], b["head"]["digest"]), (old_round, now["rounds"][0]["input_digest"]),
                     *((f["file"], g["file"]) for f, g in zip(a["files"], b["files"])),
                     *((f["digest"], g["digest"]) for f, g in zip(a["files"], b["files"]))]:
            data = data.replace(x.encode(), y.encode())
    manifest.update(body)
    if data is not None:  # a copy changed here: its manifest describes it, as a sender changing it would make it
        dest.write_bytes(data)
        manifest["export"] = {**manifest["export"], "bytes": len(data), "sha256": sha256(data), "lines": line_digests(data)}
    dest.with_name(dest.name + ".manifest.json").write_text(json.dumps(manifest))
    return dest


def _verify(root: Path, copy: Path):
    return asz_in_process("verify", "--export", str(copy), "--root", str(root), env={"TZ": "UTC"})


@pytest.mark.parametrize("folder,name", COPIES)
def test_a_copy_an_older_tree_drew_checks_and_said_as_this_render_it_does_not(root, tmp_path, folder, name):
    body = json.loads((HERE / folder / f"{name}.manifest.json").read_bytes())
    assert body.get("render") == RENDER_KEY[folder]  # the tree that drew it numbered it so, or not at all
    data = (HERE / folder / name).read_bytes()
    render = RENDER_KEY[folder] or 1
    assert (b" $0.00* (" in data) == (folder in ("r1", "r2u", "r2", "r3e"))  # f7840f1b's <$0.01*, no render number
    if name == "c.md":  # render 2's tool times (e1d32aa6), which r2u's manifest does not say
        assert (b"**Tool Bash** \xc2\xb7 2026-11-20 09:00:03 \xc2\xb7 `tool/" in data) == (folder != "r1")
    v = _verify(root, _copy(root, tmp_path, folder, name))
    assert v.returncode == 0 and v.stdout.splitlines()[-1] == "the copy checks against the root", v.stdout + v.stderr
    drawn = [x for x in v.stdout.splitlines() if x.startswith("ok: drawn as render ")]
    assert drawn == ([] if folder not in ("r1", "r2u", "r3e", "r3") else [
        f"ok: drawn as render {1 if folder == 'r1' else 2 if folder == 'r2u' else 3} drew it with the cost lines "
        + ("since f7840f1b" if folder == "r3" else "before f7840f1b (2026-12-05 22:06)")
        + (" (its manifest has no render key: renders 1 and 2 wrote none)" if folder in ("r1", "r2u")
           else " (its manifest cannot say which: that change took no render number)")]), v.stdout
    if name.endswith(".json"):  # this asz's json holds a key the copy's asz did not write: said, not a problem
        assert "the copy's summary.calls_by_tool has no refused key, which a later asz added" in v.stdout
        assert b'"refused"' not in data
        return
    if name.endswith(".html"):  # render 8's style rule: not in what render 7 and before wrote
        assert (b".said{" in data) == (render >= 8)
    now = _verify(root, _copy(root, tmp_path / "now", folder, name, render=RENDER))  # the same bytes, said to be this render's
    assert (now.returncode, " line " in now.stdout) == ((1, True) if (folder, name) in DIFFER else (0, False)), now.stdout


def test_a_json_copy_with_a_key_put_in_or_a_value_changed_fails_naming_it(root, tmp_path):
    data = (HERE / "r7" / "c.json").read_bytes()
    put = data.replace(b'"calls_by_tool":[{', b'"calls_by_tool":[{"hidden":1,', 1)
    assert put != data
    v = _verify(root, _copy(root, tmp_path, "r7", "c.json", put))
    assert v.returncode == 1, v.stdout
    assert "summary.calls_by_tool[0].hidden: a key the copy holds and the root's document does not" in v.stdout
    assert "a text changed" not in v.stdout
    doc = json.loads(data)
    tool = doc["summary"]["calls_by_tool"][0]
    changed = data.replace(b'"calls":%d,"failed":%d,' % (tool["calls"], tool["failed"]),
                           b'"calls":%d,"failed":%d,' % (tool["calls"], tool["failed"] + 1), 1)
    assert changed != data
    v = _verify(root, _copy(root, tmp_path / "v", "r7", "c.json", changed))
    assert v.returncode == 1 and "outside the masks" in v.stdout, v.stdout


def test_an_unnumbered_copy_no_drawing_gives_is_not_checkable_and_its_evidence_still_is(root, tmp_path):
    """A copy whose manifest has no render key, changed (render 1's tool heading renamed): neither render 1 nor 2
    drawn again gives it, and an asz of that time drew by rules this asz cannot draw again, so it is said not
    checkable, never changed; a render-3 copy changed so is changed (both drawings render 3 had are drawn); a landed
    file's digest the root does not hold is still a problem."""
    from asz_core.reading.export_render import NOT_REPRODUCED

    data = (HERE / "r1" / "c.md").read_bytes()
    forged = data.replace(b"**Tool Bash**", b"**Tool Bosh**", 1)
    assert forged != data
    v = _verify(root, _copy(root, tmp_path, "r1", "c.md", forged))
    lines = v.stdout.splitlines()
    assert v.returncode == 2 and lines[-1] == "the copy is unproven: its evidence checks against the root, its drawing cannot be reproduced (not checkable, above)", v.stdout
    assert [x for x in lines if x.startswith(NOT_REPRODUCED)] and "changed" not in v.stdout and " line " not in v.stdout
    late = (HERE / "r3e" / "c.md").read_bytes().replace(b"**Tool Bash**", b"**Tool Bosh**", 1)
    v = _verify(root, _copy(root, tmp_path / "r3", "r3e", "c.md", late))
    assert v.returncode == 1 and "c.md: line 21" in v.stdout and NOT_REPRODUCED not in v.stdout, v.stdout
    copy = _copy(root, tmp_path / "ev", "r1", "c.md", forged)
    body = json.loads(copy.with_name("c.md.manifest.json").read_bytes())
    body["conversations"][0]["files"][0]["digest"] = "0" * 64
    copy.with_name("c.md.manifest.json").write_text(json.dumps(body))
    v = _verify(root, copy)
    assert v.returncode == 1 and "landed file" in v.stdout and NOT_REPRODUCED not in v.stdout, v.stdout


def test_a_folder_whose_copy_no_drawing_gives_is_unproven_not_checked(root, tmp_path):
    """A folder export (``--out DIR/``) one of whose copies is changed (a tool heading renamed) with its manifest made to
    describe it, its render key taken out, and the folder manifest's digests to match: the copy is said not checkable
    and the folder unproven (exit 2, ``0 of 1 copies check``), never ``the folder checks against the root``, exit 0 (as
    it was: the folder counted that copy as checked and dropped its not-checkable line)."""
    from asz_core.reading.export_manifest import line_digests, sha256
    from asz_core.reading.export_render import NOT_REPRODUCED

    out = tmp_path / "out"
    p = asz_in_process("export", "--root", str(root), "--project", "hello", "--out", f"{out}/", env={"TZ": "UTC"})
    assert p.returncode == 0, p.stdout + p.stderr
    v = _verify(root, out)
    assert v.returncode == 0 and v.stdout.splitlines()[-1] == "the folder checks against the root", v.stdout
    folder = json.loads((out / "export.manifest.json").read_bytes())
    (f,) = folder["files"]
    copy, man = out / f["file"], out / f["manifest"]["file"]
    data = copy.read_bytes()
    forged = data.replace(b"**Tool Bash**", b"**Tool Bosh**", 1)
    assert forged != data
    copy.write_bytes(forged)
    body = json.loads(man.read_bytes())
    assert body.pop("render") == RENDER
    body["export"] = {**body["export"], "bytes": len(forged), "sha256": sha256(forged), "lines": line_digests(forged)}
    man.write_text(json.dumps(body))
    f["bytes"], f["sha256"], f["manifest"]["sha256"] = len(forged), sha256(forged), sha256(man.read_bytes())
    (out / "export.manifest.json").write_text(json.dumps(folder))
    v = _verify(root, out)
    lines = v.stdout.splitlines()
    assert v.returncode == 2, v.stdout
    assert lines[-1] == "the folder is unproven: its evidence checks against the root, its drawing cannot be reproduced (not checkable, above)", v.stdout
    assert "ok: 0 of 1 copies check against the root" in lines and f"{copy.name}: {NOT_REPRODUCED}: " in v.stdout


@pytest.mark.parametrize("folder, name, render", [("r1", "c.md", 1), ("r1", "c.html", 1), ("r2u", "c.md", 2),
                                                  ("r3e", "c.md", 3)])
def test_a_copy_with_no_manifest_drawn_with_the_older_cost_lines_is_found_and_a_changed_one_is_not(
        root, tmp_path, folder, name, render):
    """Every asz that wrote no manifest drew the cost lines as before f7840f1b (``$0.00*``): such a copy, its manifest
    gone, is found as the render that drew it (exit 0); one byte of its text changed, it is unprovable (exit 2),
    never said to check (it was unprovable at every render before the older cost lines were tried)."""
    copy = tmp_path / f"{folder}-{name}"
    data = (HERE / folder / name).read_bytes()
    copy.write_bytes(data)
    v = _verify(root, copy)
    assert v.returncode == 0 and f"no manifest: it is render {render} of conversation 7d2f1c3e" in v.stdout, v.stdout
    copy.write_bytes(data.replace(b"Check hello()", b"Check hullo()", 1))
    assert data.count(b"Check hello()")
    v = _verify(root, copy)
    assert v.returncode == 2 and "cannot be proved" in v.stderr + v.stdout, v.stdout + v.stderr
