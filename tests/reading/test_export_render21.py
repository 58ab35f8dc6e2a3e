"""An md or html copy made before render 21 still checks (docs/verify.md, export_render render 21): render 21 labels
Claude Code's interrupt notice ``Interrupted by the person`` (the adapter's ``fixed_notice``), not ``Runtime
notice``, and says ``cost unpriced (no price for MODEL)`` on the line of a call whose model has no price, where render
20 and before said no cost (close43 "Not done": reading).

Real input (``data/notices_before_21``, 35 KB): ``session.jsonl``, a written Claude Code session (a prompt, a priced
call, an interrupt notice, a prompt, a call of a model no table prices); ``root``, it collected by a checkout of
1649226e (its landed files, round and states); ``1649226e.md`` and ``.html``, the copies 1649226e made (render 19),
``641d9bc8.md`` and ``.html`` those 641d9bc8 made (render 20), with their manifests."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import as_copy

DATA = Path(__file__).parent / "data" / "notices_before_21"
SID = "f1e1d000-0000-4000-8000-0000000044e0"
NOTICE = "[Request interrupted by user]"
NO_PRICE = "claude-unpriced-test-1"


def _verify(copy: Path, root: Path):
    return asz_in_process("verify", "--export", str(copy), "--root", str(root), env={"HOME": str(root.parent / "home")})


@pytest.mark.parametrize("made,render", [("1649226e", 19), ("641d9bc8", 20)])
@pytest.mark.parametrize("form", ["md", "html"])
def test_a_copy_made_before_render_21_checks_and_todays_says_what_the_notice_and_the_price_are(tmp_path, form, made, render):
    src = [json.loads(x) for x in (DATA / "session.jsonl").read_text(encoding="utf-8").splitlines()]
    notices = [d for d in src if d["type"] == "user" and d["message"]["content"] == [{"type": "text", "text": NOTICE}]]
    models = [d["message"]["model"] for d in src if d["type"] == "assistant"]
    assert len(notices) == 1 and models.count(NO_PRICE) == 1
    root = tmp_path / "root"
    shutil.copytree(DATA / "root", root)
    old = tmp_path / f"old.{form}"
    shutil.copyfile(DATA / f"{made}.{form}", old)
    shutil.copyfile(DATA / f"{made}.{form}.manifest.json", tmp_path / f"old.{form}.manifest.json")
    before = old.read_text(encoding="utf-8")
    assert json.loads((tmp_path / f"old.{form}.manifest.json").read_text())["render"] == render
    assert "Runtime notice" in before and "Interrupted by the person" not in before and "cost unpriced (no price for" not in before
    ok = _verify(old, root)
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
    new = tmp_path / f"new.{form}"
    assert asz_in_process("export", SID, "--format", form, "--out", str(new), "--root", str(root),
                          env={"HOME": str(tmp_path / "home")}).returncode == 0
    now = new.read_text(encoding="utf-8")
    label = "**Interrupted by the person** · " if form == "md" else "<b>Interrupted by the person</b> <bdi>" + NOTICE
    assert now.count(label) == len(notices) and "Runtime notice" not in now
    assert now.count(f"cost unpriced (no price for {NO_PRICE})") == 1
    assert _verify(new, root).returncode == 0
    # the label said by hand to be the runtime's again: a changed line, never taken for an older drawing
    body = json.loads((tmp_path / f"new.{form}.manifest.json").read_text())
    edited = now.replace("Interrupted by the person", "Runtime notice", 1).encode()
    bad = _verify(Path(as_copy(tmp_path, f"hand.{form}", edited, body)), root)
    assert bad.returncode == 1, bad.stdout
