"""Nothing altered, nothing lost on a team root, proved with asz itself (trial 22a: F9, F11, F12;
docs/verify.md, "Nothing altered, nothing lost: the hosts' receipts").

Real input: two corpus projects collected by the real ``asz collect --once`` into two host roots, each pushed by the
real pass over HTTP to a real loopback receiver (one token per host). The team root is then tampered with as the
trial did, by someone who can write it: a file rewritten and re-sealed with its sender record re-chained and its
rounds, index and ``_index`` rebuilt (F9); a session removed whole with its sender record and ``_sessions.list`` line
(F11); a sender record removed (F12). One root's check finds nothing in the first two; the hosts' ``push.state``
(``asz verify --receipts``) names each changed and missing file, the host and the session.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest

from asz_core.export.credentials import read_token_file
from asz_core.export.push import push
from asz_core.export.receive import Receiver
from asz_core.export.settings import ExportConfig
from asz_core.export.state import PushState
from asz_core.storage.senders import append_senders

from export_helpers import asz, pushed_team, sent_files
from test_push_unverified import ALTERED, REPLY, SID, reseal, session_files

#: host → (corpus project, instance id, credential, token). SID is a session of host b's project.
HOSTS = {"a": ("-home-user-sample-project", "dev@hostA", "alice", "tokA-1", "http"),
         "b": ("-home-user-spotter", "dev@hostB", "bob", "tokB-2", "http")}


@pytest.fixture(scope="module")
def team(corpus_dir, tmp_path_factory) -> dict:
    """Both hosts collected and pushed over HTTP to one real receiver: the team root and the host roots."""
    return pushed_team(corpus_dir, tmp_path_factory.mktemp("receipts"), HOSTS)


def _copy(team: dict, tmp_path: Path) -> Path:
    dest = tmp_path / "team"
    shutil.copytree(team["team"], dest, symlinks=True)
    return dest


def _receipts(team: dict) -> list[str]:
    return [arg for r in team["roots"].values() for arg in ("--receipts", str(r))]


def test_every_receipt_is_found_on_the_untouched_root(team):
    accepted = sum(len(PushState.load(r).pushed) for r in team["roots"].values())
    assert accepted == sum(len(sent_files(r)) for r in team["roots"].values())  # every .sd and round of each host
    p = asz("verify", "--root", str(team["team"]), *_receipts(team))
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"checked {accepted} receipt(s) of 2 host(s) against the root" in p.stdout
    for key, r in team["roots"].items():
        n = len(PushState.load(r).pushed)
        assert (f"receipts of {r / 'push.state'} (endpoint {PushState.load(r).endpoint}): {n} file(s) the receiver "
                f"accepted: {n} in the root with that SHA-256, 0 changed, 0 missing") in p.stdout
    d = json.loads(asz("verify", "--root", str(team["team"]), "--json", *_receipts(team)).stdout)
    assert (d["receipts"], d["receipts_changed"], d["receipts_missing"], d["ok"]) == (accepted, 0, 0, True)


def test_a_full_rewrite_passes_one_root_and_the_receipts_name_it(team, tmp_path):
    """F9: the file re-sealed, its sender line re-chained, its rounds, index and _index rebuilt by asz parse."""
    root = _copy(team, tmp_path)
    rounds = sorted(rel for rel in session_files(root, SID) if rel.endswith(".sf"))
    path = reseal(root)
    changed = path.relative_to(root).as_posix()
    record = root / "_received" / f"{SID}.senders"
    lines = [orjson.loads(x) for x in record.read_bytes().splitlines()]
    record.unlink()
    append_senders(root, SID, [{k: (sent_files(root)[changed] if k == "sha256" and e["file"] == changed else v)
                                for k, v in e.items() if k not in ("prev", "digest")} for e in lines])
    for rel in rounds:
        shutil.rmtree(root / Path(rel).parents[1], ignore_errors=True)
    shutil.rmtree(root / SID / "index")
    shutil.rmtree(root / "_index", ignore_errors=True)
    assert asz("parse", "--root", str(root), SID).returncode == 0
    p = asz("verify", "--root", str(root))
    assert p.returncode == 0, p.stdout  # the documented limit: the root is consistent again
    p = asz("verify", "--root", str(root), *_receipts(team))
    assert p.returncode == 1, p.stdout
    host_b = team["roots"]["b"] / "push.state"
    want = PushState.load(team["roots"]["b"]).pushed[changed]
    assert (f"{root / changed}: changed since received [sha256]: the receipts of {host_b} (endpoint "
            f"{PushState.load(team['roots']['b']).endpoint}) say the receiver accepted this file of session {SID} "
            f"with SHA-256 {want}; the root holds it with SHA-256 {sent_files(root)[changed]}") in p.stdout
    assert ALTERED in path.read_bytes() and REPLY not in path.read_bytes()
    problems = [ln for ln in p.stdout.splitlines() if "since received" in ln]
    assert sorted(ln.split(": ", 1)[0] for ln in problems) == sorted(str(root / rel) for rel in [changed, *rounds])
    assert all(f"of {host_b} " in ln for ln in problems)
    d = json.loads(asz("verify", "--root", str(root), "--json", *_receipts(team)).stdout)
    assert (d["receipts_changed"], d["receipts_missing"]) == (1, len(rounds))


def test_a_session_removed_whole_passes_one_root_and_the_receipts_name_each_file(team, tmp_path):
    """F11: the session's directory, its chain, its sender record and its _sessions.list line removed."""
    root = _copy(team, tmp_path)
    host_a = team["roots"]["a"]
    gone = sorted(d.name for d in host_a.iterdir() if (d / "streams").is_dir())[0]
    files = session_files(host_a, gone)
    for rel in {Path(r).parents[1] for r in files if r.endswith(".sf")}:
        shutil.rmtree(root / rel)
    shutil.rmtree(root / gone)
    (root / "_received" / f"{gone}.senders").unlink()
    listed = root / "_sessions.list"
    listed.write_text("".join(ln for ln in listed.read_text().splitlines(keepends=True) if not ln.startswith(gone)))
    assert asz("verify", "--root", str(root)).returncode == 0
    p = asz("verify", "--root", str(root), *_receipts(team))
    assert p.returncode == 1, p.stdout
    problems = [ln for ln in p.stdout.splitlines() if ": missing since received [file]: " in ln]
    assert sorted(ln.split(": ", 1)[0] for ln in problems) == sorted(str(root / rel) for rel in files)
    assert all(f"the receipts of {host_a / 'push.state'} " in ln and gone in ln and "it is not in the root" in ln
               for ln in problems)
    assert "0 changed, 0 missing" in next(ln for ln in p.stdout.splitlines() if ln.startswith(
        f"receipts of {team['roots']['b'] / 'push.state'}"))
    one = asz("verify", "--root", str(root), SID, "--receipts", str(team["roots"]["b"]))
    assert one.returncode == 0 and "checked 2 receipt(s) of 1 host(s)" in one.stdout, one.stdout


def test_receipts_handed_over_as_a_copy_and_refused_when_they_are_none(team, tmp_path):
    copy = tmp_path / "hostB.receipts"
    shutil.copyfile(team["roots"]["b"] / "push.state", copy)
    p = asz("verify", "--root", str(team["team"]), "--receipts", str(copy))
    assert p.returncode == 0 and f"receipts of {copy} " in p.stdout, p.stdout
    (tmp_path / "empty").mkdir()
    for bad, why in ((tmp_path / "nothing", "no such file or folder"), (tmp_path / "empty", "no push.state in this folder"),
                     (team["tokens"], "not a push.state field")):
        p = asz("verify", "--root", str(team["team"]), "--receipts", str(bad))
        assert p.returncode == 2 and why in p.stderr, p.stderr


def test_a_received_session_without_its_sender_record_is_a_problem(team, tmp_path):
    """F12: the record removed; then only its last line, as a receiver stopped before writing it would leave it."""
    root = _copy(team, tmp_path)
    record = root / "_received" / f"{SID}.senders"
    kept = record.read_bytes()
    record.unlink()
    p = asz("verify", "--root", str(root))
    assert p.returncode == 1
    (line,) = [ln for ln in p.stdout.splitlines() if "sender record" in ln and "no sender record" in ln]
    assert line.startswith(f"{record}: sender record: session {SID} holds 1 landed file(s) that asz receive landed")
    record.write_bytes(kept)
    assert asz("verify", "--root", str(root)).returncode == 0
    longest = max((root / "_received").glob("*.senders"), key=lambda f: len(f.read_bytes().splitlines()))
    lines = longest.read_bytes().splitlines(keepends=True)
    assert len(lines) >= 2
    longest.write_bytes(b"".join(lines[:-1]))
    p = asz("verify", "--root", str(root))
    assert p.returncode == 1
    assert (f"{longest}: sender record: 1 of session {longest.stem}'s {len(lines)} landed file(s) have no line in its "
            f"sender record (the first: {orjson.loads(lines[-1])['file']})") in p.stdout


def test_a_receiver_that_stopped_before_the_record_writes_it_when_the_file_comes_again(team, tmp_path):
    """The crash window: files landed, no sender line yet, no answer. The pusher, never answered, sends them again;
    the receiver takes them as already there and writes the missing lines."""
    root = _copy(team, tmp_path)
    host = tmp_path / "host"
    shutil.copytree(team["roots"]["b"], host, symlinks=True)
    record = root / "_received" / f"{SID}.senders"
    record.unlink()
    (host / "push.state").unlink()  # the answer never came: nothing recorded as sent
    rcv = Receiver(root, "127.0.0.1:0", token=read_token_file(team["tokens"])).start().serve_in_thread()
    try:
        _, instance, credential, token, _ = HOSTS["b"]
        rep = push(host, ExportConfig(instance_id=instance, headers={"Authorization": f"Bearer {token}"}),
                   endpoint=f"http://{rcv.address}")
        assert rep.ok, rep.problems
    finally:
        rcv.stop()
    got = [orjson.loads(x) for x in record.read_bytes().splitlines()]
    assert [(e["file"], e["instance"], e["credential"]) for e in got] == [
        (rel, instance, credential) for rel in sorted(session_files(host, SID)) if rel.endswith(".sd")]
    p = asz("verify", "--root", str(root), "--receipts", str(host))
    assert p.returncode == 0, p.stdout


def test_push_receipts_hands_over_the_endpoints_receipts_without_sending(team, tmp_path):
    """``asz push --receipts FILE``: the receipts of the endpoint, byte for byte, also after a push elsewhere moved them
    under _export/endpoints/; none of an endpoint never pushed to is exit 1 and no file."""
    host = tmp_path / "host"
    shutil.copytree(team["roots"]["b"], host, symlinks=True)
    endpoint = PushState.load(host).endpoint
    kept = (host / "push.state").read_bytes()
    out = tmp_path / "hostB.receipts"
    p = asz("push", "--root", str(host), "--endpoint", endpoint, "--receipts", str(out), child=False)
    assert p.returncode == 0 and out.read_bytes() == kept, p.stdout + p.stderr
    accepted = len(PushState.load(host).pushed)
    assert p.stdout == (f"receipts of {endpoint}: {accepted} file(s) the receiver accepted (0 rejected), written to "
                        f"{out}; asz verify --root TEAM --receipts {out} holds the receiving root to them\n")
    PushState.load(host).for_endpoint("http://127.0.0.1:9")  # as a push to a test receiver leaves the root
    assert PushState.load(host).endpoint == "http://127.0.0.1:9"
    out.unlink()
    p = asz("push", "--root", str(host), "--endpoint", endpoint, "--receipts", str(out), child=False)
    assert p.returncode == 0, p.stderr
    moved = (host / "_export" / "endpoints").glob("*.state")  # kept there, its updated_at written anew
    assert out.read_bytes() == next(moved).read_bytes() and out.read_bytes().split(b"\n")[2:] == kept.split(b"\n")[2:]
    p = asz("verify", "--root", str(team["team"]), "--receipts", str(out))
    assert p.returncode == 0 and f"checked {accepted} receipt(s) of 1 host(s)" in p.stdout, p.stdout
    other = tmp_path / "other.receipts"
    p = asz("push", "--root", str(host), "--endpoint", "http://127.0.0.1:10", "--receipts", str(other), child=False)
    assert p.returncode == 1 and not other.exists() and "holds no receipts of http://127.0.0.1:10" in p.stderr



def _refused_receipts(host: Path, endpoint: str, path: Path, what: str) -> None:
    """``asz push --receipts PATH``: exit 2 in the refusal's words (``what``: how it names PATH and what it is)."""
    p = asz("push", "--root", str(host), "--endpoint", endpoint, "--receipts", str(path), child=False)
    assert p.returncode == 2 and p.stdout == "", p.stderr
    assert p.stderr == (f"asz push: --receipts {path}{what}: nothing written (asz writes a file whole under a temporary "
                        "name and renames it over the one named, so it replaces only a regular file, or writes through "
                        "a symbolic link to one; give a regular file's name)\n")


def test_push_receipts_refuses_a_fifo_and_dash_and_writes_through_a_link(team, tmp_path):
    """Trial 47b F1, for ``--receipts FILE``: a FIFO or a link to one is refused, exit 2, left as it was, nothing
    beside it; ``-`` is not offered (exit 2); a link to a regular file gets the receipts in its target, the link kept."""
    import os
    import stat

    host = tmp_path / "host"
    shutil.copytree(team["roots"]["b"], host, symlinks=True)
    endpoint = PushState.load(host).endpoint
    d = tmp_path / "out"
    d.mkdir()
    os.mkfifo(d / "fifo")
    (d / "to-fifo").symlink_to("fifo")
    _refused_receipts(host, endpoint, d / "fifo", ": a FIFO (named pipe), not a regular file")
    _refused_receipts(host, endpoint, d / "to-fifo", " (a symbolic link to fifo): a FIFO (named pipe), not a regular file")
    assert sorted(os.listdir(d)) == ["fifo", "to-fifo"] and stat.S_ISFIFO(os.lstat(d / "fifo").st_mode)
    p = asz("push", "--root", str(host), "--endpoint", endpoint, "--receipts", "-", child=False)
    assert p.returncode == 2 and p.stderr == "asz push: --receipts - is not offered: give a file's name\n"
    target = tmp_path / "kept" / "hostB.receipts"
    target.parent.mkdir()
    target.write_text("old\n")
    (d / "link").symlink_to(target)
    p = asz("push", "--root", str(host), "--endpoint", endpoint, "--receipts", str(d / "link"), child=False)
    assert p.returncode == 0, p.stderr
    assert target.read_bytes() == (host / "push.state").read_bytes() and os.readlink(d / "link") == str(target)
    assert os.listdir(target.parent) == ["hostB.receipts"]


def test_push_receipts_refuses_a_device(team, tmp_path):
    """The same refusal for a character device 1,3 (what /dev/null is), made with mknod in the test's folder."""
    import os
    import stat

    try:
        os.mknod(tmp_path / "null", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except PermissionError as exc:
        pytest.skip(f"mknod is not permitted here ({exc.strerror}): the device case needs root or CAP_MKNOD")
    host = tmp_path / "host"
    shutil.copytree(team["roots"]["b"], host, symlinks=True)
    _refused_receipts(host, PushState.load(host).endpoint, tmp_path / "null", ": a character device (1,3), not a regular file")
    assert sorted(os.listdir(tmp_path)) == ["host", "null"] and stat.S_ISCHR(os.lstat(tmp_path / "null").st_mode)
