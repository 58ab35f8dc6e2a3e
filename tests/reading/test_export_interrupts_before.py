"""A text or ``--audit`` copy made before 65cc2646 of a conversation holding Claude Code's interrupt notice still checks
(fix43m; docs/verify.md, export_render render 19): since 65cc2646 the notice is the runtime's notice in the talk it
interrupted, and ``asz verify --export --root`` of such a copy made at fbe44e18 failed at the header's ``problems``
(the round read the notice by an earlier rule) and, on a root claude-code-local 0.9.0 landed, at every notice line
(``notice 2`` against ``interrupt 2``, ``role system`` against ``user``).

Real input, made once by a checkout of fbe44e18 (``data/interrupts_before``, 45 KB): ``session.jsonl``, a written
Claude Code session with 2 interrupt notices (a list of one text block); ``root_fbe44e18``, it collected by fbe44e18
(claude-code-local 0.8.0 flagged the notices ``external_input``); ``root_main``, it collected by this asz's 0.9.0
(flagged ``notice``); ``fbe44e18_ROOT.txt`` and ``.jsonl``, the ``--format text`` and ``--audit`` copies fbe44e18 made of
each root, with their manifests (render 17). Only the roots' landed files, rounds and states are kept."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import as_copy

DATA = Path(__file__).parent / "data" / "interrupts_before"
SID = "f1e1d000-0000-4000-8000-0000000043ad"
NOTICES = ("[Request interrupted by user]", "[Request interrupted by user for tool use]")


def _notices() -> int:
    """The interrupt notices of the written session, counted from its lines: a user line whose content is a list of
    one text block holding one of the notices whole."""
    lines = [json.loads(x) for x in (DATA / "session.jsonl").read_text().splitlines()]
    return sum(1 for v in lines if v["type"] == "user" and isinstance(c := v["message"]["content"], list)
               and len(c) == 1 and c[0].get("text") in NOTICES)


def _verify(copy: Path, root: Path):
    return asz_in_process("verify", "--export", str(copy), "--root", str(root), env={"HOME": str(root.parent / "home")})


@pytest.mark.parametrize("landed", ["root_fbe44e18", "root_main"])
@pytest.mark.parametrize("suffix", ["txt", "jsonl"])
def test_a_copy_made_before_the_notice_was_read_checks_and_a_changed_line_does_not(tmp_path, landed, suffix):
    root = tmp_path / "root"
    shutil.copytree(DATA / landed, root)
    copy = tmp_path / f"old.{suffix}"
    data = (DATA / f"fbe44e18_{landed}.{suffix}").read_bytes()
    copy.write_bytes(data)
    shutil.copyfile(DATA / f"fbe44e18_{landed}.{suffix}.manifest.json", tmp_path / f"old.{suffix}.manifest.json")
    n = _notices()
    assert n == 2
    if suffix == "txt":  # fbe44e18 drew each notice as a person's interrupt (0.8.0) or the runtime's notice (0.9.0)
        kind = "interrupt" if landed == "root_fbe44e18" else "notice"
        assert data.count(f"Z] {kind}\n".encode()) == n and f"{kind} {n}".encode() in data
    else:
        rows = [json.loads(x) for x in data.splitlines()[1:]]
        role = "user" if landed == "root_fbe44e18" else "system"
        assert sum(1 for r in rows if r["text"] in NOTICES and r["role"] == role) == n
    ok = _verify(copy, root)
    assert ok.returncode == 0 and ok.stdout.splitlines()[-1] == "the copy checks against the root", ok.stdout
    if landed == "root_fbe44e18":  # re-folded by today's rule, it is still checked as of the copy's round
        assert asz_in_process("parse", SID, "--root", str(root)).returncode == 0
        again = _verify(copy, root)
        assert again.returncode == 0 and "round 1 → 2" in again.stdout, again.stdout
    # a person's prompt said by hand to be an interrupt: named at its line and column, as every changed text is
    was, now = ((b"] prompt\n| just say hello", b"] interrupt\n| just say hello") if suffix == "txt" else
                (b'"row":5,"kind":"prompt"}', b'"row":5,"kind":"interrupt"}'))
    assert data.count(was) == 1
    body = json.loads((tmp_path / f"old.{suffix}.manifest.json").read_text())
    edited = data.replace(was, now)
    line = edited[:edited.index(now)].count(b"\n") + 1
    bad = _verify(Path(as_copy(tmp_path, f"hand.{suffix}", edited, body)), root)
    assert bad.returncode == 1 and f"hand.{suffix}: line {line} column " in bad.stdout, bad.stdout
