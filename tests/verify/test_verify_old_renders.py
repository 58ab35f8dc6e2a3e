"""Copies the older asz trees drew check against the root with this asz (``asz verify --export``; trial 39c F1, F2).

``old_renders/rN/`` holds what the tree that drew render N wrote for the bundled example (its conversation 7d2f1c3e,
``make_old_renders.py`` says how): render 3 (md, html: render 4 added the md warning line), 7 (md, html, json: render 8
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
COPIES = [(3, "c.md"), (3, "c.html"), (7, "c.md"), (7, "c.html"), (7, "c.json"), (8, "c.md"), (9, "c.md"),
          (12, "folder/7d2f1c3e-5b8a-4e61-9f0d-2a4c6e8b1d35.md")]
#: The copies this asz draws otherwise now: said to be of this render, each fails (render 12's folder md names no
#: index in its manifest, so render 13 draws it as it was).
DIFFER = {(3, "c.md"), (3, "c.html"), (7, "c.md"), (7, "c.html"), (8, "c.md"), (9, "c.md")}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    if not EXAMPLE.is_dir():
        pytest.skip(f"{EXAMPLE} is absent")
    base = tmp_path_factory.mktemp("old-renders")
    shutil.copytree(EXAMPLE, base / "projects")
    p = asz_in_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    assert p.returncode == 0 and " records=14 " in p.stdout, p.stdout + p.stderr  # the example's 9 + 5 lines
    return base / "root"


def _copy(root: Path, tmp: Path, r: int, name: str, data: bytes | None = None, **body) -> Path:
    """The fixture ``rR/NAME`` (or ``data`` in its place) in ``tmp`` with its manifest pointed at ``root`` (and
    ``body``'s keys)."""
    from asz_core.reading.export import build
    from asz_core.reading.export_manifest import evidence, line_digests, sha256

    src = HERE / f"r{r}" / name
    dest = tmp / f"r{r}" / name
    dest.parent.mkdir(parents=True, exist_ok=True)
    for sib in src.parent.iterdir():  # a folder copy's index beside it
        shutil.copyfile(sib, dest.parent / sib.name)
    manifest = json.loads(src.with_name(src.name + ".manifest.json").read_bytes())
    was, manifest["conversations"] = manifest["conversations"], [evidence(build(root, c["conversation"], []))
                                                                 for c in manifest["conversations"]]
    if name.endswith(".json") and data is None:  # the document names its landed files and head round: this root's
        data, now = src.read_bytes(), build(root, was[0]["conversation"], [])
        a, b = was[0], manifest["conversations"][0]
        old_round = json.loads(data)["rounds"][0]["input_digest"]
        for x, y in [(a["head"]["digest"], b["head"]["digest"]), (old_round, now["rounds"][0]["input_digest"]),
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


@pytest.mark.parametrize("render,name", COPIES)
def test_a_copy_an_older_tree_drew_checks_and_said_as_this_render_it_does_not(root, tmp_path, render, name):
    body = json.loads((HERE / f"r{render}" / f"{name}.manifest.json").read_bytes())
    assert body.get("render") == render  # the tree that drew it numbered it so
    v = _verify(root, _copy(root, tmp_path, render, name))
    assert v.returncode == 0 and v.stdout.splitlines()[-1] == "the copy checks against the root", v.stdout + v.stderr
    if name.endswith(".json"):  # this asz's json holds a key the copy's asz did not write: said, not a problem
        assert "the copy's summary.calls_by_tool has no refused key, which a later asz added" in v.stdout
        assert b'"refused"' not in (HERE / f"r{render}" / name).read_bytes()
        return
    if name.endswith(".html"):  # render 8's style rule: not in what render 7 and before wrote
        assert (b".said{" in (HERE / f"r{render}" / name).read_bytes()) == (render >= 8)
    now = _verify(root, _copy(root, tmp_path / "now", render, name, render=RENDER))  # the same bytes, said to be this render's
    assert (now.returncode, " line " in now.stdout) == ((1, True) if (render, name) in DIFFER else (0, False)), now.stdout


def test_a_json_copy_with_a_key_put_in_or_a_value_changed_fails_naming_it(root, tmp_path):
    data = (HERE / "r7" / "c.json").read_bytes()
    put = data.replace(b'"calls_by_tool":[{', b'"calls_by_tool":[{"hidden":1,', 1)
    assert put != data
    v = _verify(root, _copy(root, tmp_path, 7, "c.json", put))
    assert v.returncode == 1, v.stdout
    assert "summary.calls_by_tool[0].hidden: a key the copy holds and the root's document does not" in v.stdout
    assert "a text changed" not in v.stdout
    doc = json.loads(data)
    tool = doc["summary"]["calls_by_tool"][0]
    changed = data.replace(b'"calls":%d,"failed":%d,' % (tool["calls"], tool["failed"]),
                           b'"calls":%d,"failed":%d,' % (tool["calls"], tool["failed"] + 1), 1)
    assert changed != data
    v = _verify(root, _copy(root, tmp_path / "v", 7, "c.json", changed))
    assert v.returncode == 1 and "outside the masks" in v.stdout, v.stdout
