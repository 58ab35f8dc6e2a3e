"""A round file changed by one byte (trial 17, F1): ``asz verify`` says what its commit line holds against what the
frames give, in words, and the way out (``asz parse ID --anew``); the way out works and verify is clean after it.

Real input: a session of the Claude Code corpus (../shared/corpus/claude-code/projects) collected by the real
``asz collect --once``; its one round (16 nodes, 1 relation, 0 unresolved; line 19 is the commit) then edited.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from cli_helpers import asz_in_process as asz

SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
PROJECT = "-home-user-claude-reliability"


@pytest.fixture()
def root(corpus_dir: Path, tmp_path: Path) -> Path:
    src, root = tmp_path / "src", tmp_path / "root"
    (src / PROJECT).mkdir(parents=True)
    (src / PROJECT / f"{SID}.jsonl").write_bytes((corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl").read_bytes())
    p = asz("collect", "--once", "--source", str(src), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    return root


def _damage(root: Path, old: bytes, new: bytes) -> Path:
    (rf,) = sorted((root / "_conversations" / SID / "rounds").glob("*.sf"))
    data = rf.read_bytes()
    assert data.count(old) == 1 and len(old) == len(new)
    rf.chmod(0o644)
    rf.write_bytes(data.replace(old, new))
    return rf


HINT = ("the round file does not read as parse wrote it (changed or damaged since), so it vouches for no landed file; "
        "once the session's landed files verify (no other problem names them), asz parse "
        f"{SID} --anew --root {{root}} sets this chain aside (kept under _set_aside/, never deleted) and builds a new one "
        "from them")


@pytest.mark.parametrize("old, new, said", [
    (b'"counts":{"nodes":16', b'"countz":{"nodes":16',
     "commit: counts missing: the frames the round holds are 16 nodes, 1 relations, 0 unresolved (line 19)"),
    (b'"counts":{"nodes":16', b'"counts":{"nodes":19',
     "commit: counts (19 nodes, 1 relations, 0 unresolved) do not match the frames the round holds "
     "(16 nodes, 1 relations, 0 unresolved) (line 19)"),
])
def test_a_changed_commit_line_is_said_in_words_with_the_way_out(root, old, new, said):
    rf = _damage(root, old, new)
    v = asz("verify", "--root", str(root))
    assert v.returncode == 1
    assert v.stdout.splitlines()[-1] == f"{rf}: chain [round 1]: {said}; {HINT.format(root=root)}"
    assert "None" not in v.stdout and "{'nodes'" not in v.stdout
    (problem,) = json.loads(asz("verify", "--root", str(root), "--json").stdout)["problems"]
    assert problem["problem"] == "chain" and problem["field"] == "round 1"  # the kind and key tools match on
    p = asz("parse", SID, "--anew", "--root", str(root))  # the way out, followed
    assert p.returncode == 0, p.stdout + p.stderr
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr


def test_a_byte_changed_before_the_commit_names_both_digests(root):
    (rf,) = sorted((root / "_conversations" / SID / "rounds").glob("*.sf"))
    data = rf.read_bytes()
    digest = data[data.index(b'"digest":"', data.index(b'"t":"commit"')) + 10:][:64].decode()
    at = data.index(b'"input_digest":"') + 16  # one hex digit of the header's input digest: still a round that parses
    changed = data[:at] + (b"0" if data[at:at + 1] != b"0" else b"1") + data[at + 1:]
    _damage(root, data, changed)
    now = hashlib.sha256(changed[:changed.index(b'{"t":"commit"')]).hexdigest()
    v = asz("verify", "--root", str(root))
    assert v.returncode == 1
    assert v.stdout.splitlines()[-1] == (f"{rf}: chain [round 1]: commit: digest {digest} does not match the bytes before it "
                                         f"(their SHA-256 is {now}) (line 19); {HINT.format(root=root)}")
