"""A session folder removed whole from a root whose source is still there (trial 17, F2): verify's missing-session
problem and ``asz sources --reland``'s refusal both say that a collect lands it again from its source, and following
that (then ``asz parse --anew`` when its chain stayed) gives a root that verifies.

Real input: a session of the Claude Code corpus (../shared/corpus/claude-code/projects), copied and collected by the
real ``asz collect --once``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cli_helpers import asz_in_process as asz

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROJECT = "-home-user-claude-reliability"
WAY = ("if it was collected into this root and its source is still there, asz collect --once --root {root} lands it "
       "again from the source as it is now (adapter claude-code-local; --source the folder it was collected from, when "
       "that is not the default)")
COPY = "only a copy held elsewhere (a receiver asz push sent it to, a backup) brings back what landed byte for byte"


@pytest.fixture()
def src_root(corpus_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    src, root = tmp_path / "src", tmp_path / "root"
    (src / PROJECT).mkdir(parents=True)
    (src / PROJECT / f"{SID}.jsonl").write_bytes((corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl").read_bytes())
    p = asz("collect", "--once", "--source", str(src), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    return src, root


def test_a_removed_session_and_its_chain_land_again_by_a_collect(src_root):
    src, root = src_root
    shutil.rmtree(root / SID)
    shutil.rmtree(root / "_conversations" / SID)
    v = asz("verify", "--root", str(root))
    assert v.returncode == 1
    (p,) = [ln for ln in v.stdout.splitlines() if ": missing session: " in ln]
    assert p.endswith(f"its chain is gone too: the session was removed after it landed, and no reader shows it; "
                      f"{WAY.format(root=root)}; {COPY}")
    r = asz("sources", "--reland", SID[:8], "--root", str(root), "--source", str(src))
    assert r.returncode == 1
    (at,) = [ln.split()[1] for ln in (root / "_sessions.list").read_text().splitlines() if ln.startswith(SID)]
    assert r.stderr == (f"asz sources: no session is or starts with '{SID[:8]}' in {root}, but {root}/_sessions.list names "
                        f"session {SID} as landed here (first landed {at} by claude-code-local/0.9.0): its directory is "
                        f"gone, and --reland lands again files of a session the root still holds; {WAY.format(root=root)}; "
                        f"{COPY}\n")
    c = asz("collect", "--once", "--source", str(src), "--root", str(root))  # the way, followed
    assert c.returncode == 0, c.stdout + c.stderr
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
    assert "checked 1 session(s), 1 source file(s), 9 records" in v.stdout


def test_a_removed_session_whose_chain_stayed_lands_again_then_parses_anew(src_root):
    src, root = src_root
    shutil.rmtree(root / SID)
    v = asz("verify", "--root", str(root))
    (p,) = [ln for ln in v.stdout.splitlines() if ": missing session: " in ln]
    anew = f"asz parse {SID} --anew --root {root}"
    assert (f"{WAY.format(root=root)}; then {anew} sets aside the chain left here (it binds the files that are gone) and "
            f"builds a new one, as the collect warns; {COPY}") in p
    c = asz("collect", "--once", "--source", str(src), "--root", str(root))
    assert c.returncode == 0 and anew in c.stderr, c.stdout + c.stderr
    assert asz("parse", SID, "--anew", "--root", str(root)).returncode == 0
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
