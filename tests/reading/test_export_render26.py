"""A resumed copy's title names what it continues by its whole id since render 26, and a copy made before still checks
(docs/view.md ``summary.title``, docs/verify.md; export_render render 26; close44 "Not done": render 25 and before
titled it ``(continues XXXXXXXX)``, the id's first 8 characters, which here name both conversations).

Real input (``data/continued_before_26``, 40 KB): ``a.jsonl``, a written Claude Code session (a prompt, a call);
``b.jsonl``, its every line under another ``sessionId`` and nothing else (a copy resumed and left at once); ``root``,
both collected by a checkout of 22891816 (render 24); ``22891816.md``, ``.html`` and ``.json``, the copies of B it
made, with their manifests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli_helpers import asz_in_process
from reading_helpers import as_copy

DATA = Path(__file__).parent / "data" / "continued_before_26"
A, B = "c0de2500-0000-4000-8000-00000000000a", "c0de2500-0000-4000-8000-00000000000b"


def _asz(tmp_path: Path, *args: str):
    return asz_in_process(*args, "--root", str(tmp_path / "root"), env={"HOME": str(tmp_path / "home")})


def test_a_resumed_copy_is_titled_with_the_whole_id_and_a_copy_titled_before_still_checks(tmp_path):
    a, b = ([json.loads(x) for x in (DATA / n).read_text(encoding="utf-8").splitlines()] for n in ("a.jsonl", "b.jsonl"))
    assert [dict(x, sessionId=A) for x in b] == a and {x["sessionId"] for x in b} == {B} and A[:8] == B[:8]
    prompt = next(x["message"]["content"] for x in a if x["type"] == "user")
    shutil.copytree(DATA / "root", tmp_path / "root")
    for form in ("md", "html", "json"):
        shutil.copyfile(DATA / f"22891816.{form}", tmp_path / f"old.{form}")
        shutil.copyfile(DATA / f"22891816.{form}.manifest.json", tmp_path / f"old.{form}.manifest.json")
        assert json.loads((tmp_path / f"old.{form}.manifest.json").read_text())["render"] == 24
        assert f"(continues {A[:8]}) {prompt}" in (tmp_path / f"old.{form}").read_text(encoding="utf-8")
        ok = _asz(tmp_path, "verify", "--export", str(tmp_path / f"old.{form}"))
        assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
    want = f"(continues {A}) {prompt}"
    rows = {r["id"]: r["title"] for r in json.loads(_asz(tmp_path, "ls", "--json").stdout)}
    assert rows == {A: prompt, B: want}
    new = tmp_path / "new.md"
    assert _asz(tmp_path, "export", B, "--format", "md", "--out", str(new)).returncode == 0
    now = new.read_text(encoding="utf-8")
    assert now.splitlines()[0] == f"# {want}"
    assert _asz(tmp_path, "verify", "--export", str(new)).returncode == 0
    # today's copy with the title cut by hand to the older 8 characters: a changed line, not an older drawing
    body = json.loads((tmp_path / "new.md.manifest.json").read_text())
    bad = _asz(tmp_path, "verify", "--export", as_copy(tmp_path, "hand.md", now.replace(A, A[:8], 1).encode(), body))
    assert bad.returncode == 1 and "line 1 column" in bad.stdout, bad.stdout
