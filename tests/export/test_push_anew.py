"""asz push before and after ``asz parse SESSION --anew`` to a real receiver on loopback (storage-root.md, When something
is lost; push.md, A chain built anew).

``--anew`` sets the session's chain aside and builds a new one from the same landed files. A chain parsed over two
passes has rounds 1 and 2; built anew it has one round 1 over both files, a different round at a number the receiver
already holds. The receiver must end with the pusher's new chain (its old chain kept under ``_set_aside/``, never
deleted), every landed file once, nothing sent twice, and later rounds must follow.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from asz_core.export.admit import Refused
from asz_core.export.land import land
from asz_core.export.receive import Receiver
from asz_core.export.state import PushState
from asz_core.view import build_view

from export_helpers import asz, sent_files, summary

#: A Claude Code transcript of the corpus: 68 lines, each one record (wc -l of the file).
_SID = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"
_PROJECT = "-Users-alex-workspace-claude-code-log-sample"


@pytest.fixture
def receiver(tmp_path):
    r = Receiver(tmp_path / "received", "127.0.0.1:0").start().serve_in_thread()
    yield r
    r.stop()


def _grow(src: Path, full: list[bytes], n: int) -> None:
    src.write_bytes(b"".join(full[:n]))


def _collect(tmp: Path, projects: Path, root: Path) -> None:
    p = asz("collect", "--once", "--source", str(projects), "--root", str(root), cwd=tmp,
            env={"CLAUDE_CONFIG_DIR": str(tmp / "claude")}, child=True)
    assert p.returncode == 0, p.stdout + p.stderr


def _push(root: Path, receiver, tmp: Path):
    p = asz("push", "--root", str(root), "--endpoint", f"grpc://{receiver.address}", cwd=tmp)
    return p, summary(p.stdout.strip().splitlines()[-1]) if p.stdout.strip() else {}


def _rounds(root: Path) -> dict[str, bytes]:
    d = root / "_conversations" / _SID / "rounds"
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())}


def _live(files: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in files.items() if not k.startswith("_set_aside/")}


@pytest.mark.parametrize("refused_before", [False, True], ids=["first push after anew", "refused by an older asz"])
def test_push_after_parse_anew_sends_the_new_chain_and_the_receiver_keeps_the_old(corpus_dir, tmp_path, receiver,
                                                                                  refused_before):
    """``refused_before``: push.state as a pass before 2026-12-03 left it, the new round 1 sent and refused (one
    round per number); it is sent again, now naming what it replaces."""
    full = (corpus_dir / "claude-code" / "projects" / _PROJECT / f"{_SID}.jsonl").read_bytes().splitlines(keepends=True)
    assert len(full) == 68
    projects = tmp_path / "projects"
    src = projects / _PROJECT / f"{_SID}.jsonl"
    src.parent.mkdir(parents=True)
    root = tmp_path / "data"
    for n in (30, 50):  # two passes: two landed files, rounds 1 and 2
        _grow(src, full, n)
        _collect(tmp_path, projects, root)
    old = _rounds(root)
    assert [k[:7] for k in old] == ["r000001", "r000002"]

    p, s = _push(root, receiver, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (s["files"], s["rejected"], s["errors"]) == ("4", "0", "0")  # 2 landed files, 2 rounds
    assert _live(sent_files(receiver.root)) == _live(sent_files(root))

    a = asz("parse", _SID, "--anew", "--root", str(root), cwd=tmp_path)
    assert a.returncode == 0, a.stdout + a.stderr
    new = _rounds(root)
    assert [k[:7] for k in new] == ["r000001"] and not set(new) & set(old)  # one round over both files, another digest
    if refused_before:
        (name, data), = new.items()
        rel = f"_conversations/{_SID}/rounds/{name}"
        with open(root / "push.state", "a", encoding="utf-8") as f:
            f.write(f"pushed {rel} {hashlib.sha256(data).hexdigest()}\nrejected {rel}\n")

    p, s = _push(root, receiver, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (s["files"], s["rejected"], s["errors"]) == ("1", "0", "0")  # only the new round: no landed file again
    assert _rounds(receiver.root) == new
    (kept,) = (receiver.root / "_set_aside").glob(f"*/_conversations/{_SID}")  # the receiver's old chain: kept, whole
    assert {q.name: q.read_bytes() for q in sorted((kept / "rounds").iterdir())} == old
    assert _live(sent_files(receiver.root)) == _live(sent_files(root))
    state = (root / "push.state").read_text(encoding="utf-8")
    assert not any(name in state for name in old) and "rejected" not in state  # the replaced rounds are forgotten

    _grow(src, full, 68)  # later rounds follow the new chain
    _collect(tmp_path, projects, root)
    assert [k[:7] for k in _rounds(root)] == ["r000001", "r000002"]
    p, s = _push(root, receiver, tmp_path)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (s["files"], s["rejected"], s["errors"]) == ("2", "0", "0")  # the third landed file and round 2
    assert _live(sent_files(receiver.root)) == _live(sent_files(root))
    v = asz("verify", "--root", str(receiver.root), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    assert "68 records" in v.stdout  # every line of the transcript, once
    assert build_view(receiver.root, _SID) == build_view(root, _SID)
    p, s = _push(root, receiver, tmp_path)
    assert p.returncode == 0 and (s["files"], s["requests"]) == ("0", "1")  # the idle check's empty request (trial 24a F8)


def test_a_chain_is_replaced_only_for_the_head_the_receiver_holds(corpus_dir, tmp_path):
    """The receiver sets its chain aside for a different round 1 only when the record names its chain's last round
    (path and SHA-256) as the one replaced; any other claim, or none, is refused and nothing moves."""
    full = (corpus_dir / "claude-code" / "projects" / _PROJECT / f"{_SID}.jsonl").read_bytes().splitlines(keepends=True)
    projects = tmp_path / "projects"
    src = projects / _PROJECT / f"{_SID}.jsonl"
    src.parent.mkdir(parents=True)
    root = tmp_path / "data"
    for n in (30, 50):
        _grow(src, full, n)
        _collect(tmp_path, projects, root)
    recv = tmp_path / "recv"
    shutil.copytree(root, recv)  # the receiver holds the old chain
    old = _rounds(recv)
    assert asz("parse", _SID, "--anew", "--root", str(root), cwd=tmp_path).returncode == 0
    ((name, data),) = _rounds(root).items()
    rel = f"_conversations/{_SID}/rounds/{name}"
    digest = hashlib.sha256(data).hexdigest()
    head = f"_conversations/{_SID}/rounds/{sorted(old)[-1]}"
    first = f"_conversations/{_SID}/rounds/{sorted(old)[0]}"
    for claim in (None, f"{head} {'0' * 64}", f"{first} {hashlib.sha256(old[sorted(old)[0]]).hexdigest()}", "nonsense"):
        with pytest.raises(Refused, match="one round per number"):
            land(recv, rel, digest, data, replaces=claim)
        assert _rounds(recv) == old and not (recv / "_set_aside").exists()
    assert land(recv, rel, digest, data, replaces=f"{head} {hashlib.sha256(old[sorted(old)[-1]]).hexdigest()}")
    assert _rounds(recv) == {name: data}
    (kept,) = (recv / "_set_aside").glob(f"*/_conversations/{_SID}")
    assert {q.name: q.read_bytes() for q in sorted((kept / "rounds").iterdir())} == old
