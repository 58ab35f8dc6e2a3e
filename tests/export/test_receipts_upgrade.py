"""Received roots that predate sender records, and receipts of another receiver (session 22's leftovers;
docs/verify.md, "What one root cannot show" and "Nothing altered, nothing lost: the hosts' receipts").

Real input: corpus projects collected by the real ``asz collect --once`` into host roots, each pushed by the real pass
over HTTP to a real loopback receiver.

An old receiving root: what ``asz receive`` wrote before sender records existed (f2523e4, the commit before b3dec9f)
is what it writes now without ``_received/``. Made by hand on 2026-12-04 (session 23): the corpus's
-home-user-sample-project collected and pushed by f2523e4's own ``asz collect``/``asz receive``/``asz push``, and the
same host pushed by d4ac5f1's to a receiver of its own: the two roots held the same files, byte for byte (the landed
``.sd``, the round, the session's ``index/``, ``_sessions.list``), and d4ac5f1's held ``_received/<session>.senders``
besides. So the test builds the old root with today's receiver and removes ``_received/``: that shape, honestly. A
root whose records an asz of sessions 19-22 began (no ``_received/before.list``) is today's without that list.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import orjson
import pytest

from asz_core.export.push import push
from asz_core.export.receive import Receiver
from asz_core.export.settings import ExportConfig
from asz_core.export.state import PushState
from asz_core.storage.senders import BEFORE_EARLIER, BEFORE_NONE

from export_helpers import asz, collect_corpus, sent_files

PROJECTS = {"a": ("-home-user-sample-project", "dev@hostA"), "b": ("-home-user-spotter", "dev@hostB"),
            "c": ("-src-deep-manifest", "dev@hostA")}


def _collect(corpus_dir: Path, base: Path, key: str, *projects: str) -> Path:
    """``base/key/root``: the corpus ``projects`` (keys of PROJECTS) collected by the real ``asz collect --once``."""
    src = base / key / "src"
    for p in projects:
        shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECTS[p][0], src / PROJECTS[p][0])
    collect_corpus(src, base / key / "root", base / key)
    return base / key / "root"


def _push(host: Path, team: Path, instance: str, err: io.StringIO | None = None) -> str:
    """One real pass of ``host`` to a real receiver of ``team`` started for it; returns the endpoint."""
    rcv = Receiver(team, "127.0.0.1:0", err=err if err is not None else io.StringIO()).start().serve_in_thread()
    try:
        endpoint = f"http://{rcv.address}"
        rep = push(host, ExportConfig(instance_id=instance), endpoint=endpoint)
        assert rep.ok and rep.files, rep.problems
    finally:
        rcv.stop()
    return endpoint


@pytest.fixture(scope="module")
def hosts(corpus_dir, tmp_path_factory) -> dict:
    """Host a (one session) and host b (two), collected; the old-shaped team root that received host a."""
    base = tmp_path_factory.mktemp("upgrade")
    a, b = _collect(corpus_dir, base, "a", "a"), _collect(corpus_dir, base, "b", "b")
    _push(a, base / "old", PROJECTS["a"][1])
    shutil.rmtree(base / "old" / "_received")  # all that an asz before sender records did not write
    return {"a": a, "b": b, "old": base / "old", "base": base}


def _copy(src: Path, dest: Path) -> Path:
    shutil.copytree(src, dest, symlinks=True)  # copy2: the landed files keep their times
    return dest


def _lines(path: Path) -> list[dict]:
    return [orjson.loads(x) for x in path.read_bytes().splitlines()]


def test_an_old_root_upgraded_lists_what_landed_before_and_verifies(hosts, tmp_path):
    team = _copy(hosts["old"], tmp_path / "team")
    assert asz("verify", "--root", str(team)).returncode == 0  # no _received/: nothing to hold it to, as before
    host_b = _copy(hosts["b"], tmp_path / "b")
    err = io.StringIO()
    _push(host_b, team, PROJECTS["b"][1], err)
    before = team / "_received" / "before.list"
    old_files = {rel: d for rel, d in sent_files(hosts["old"]).items() if rel.endswith(".sd")}
    got = _lines(before)
    assert [(e["file"], e["sha256"], e["how"]) for e in got] == [(rel, d, BEFORE_NONE) for rel, d in old_files.items()]
    assert (f"note: {before}: {len(old_files)} landed file(s) of this root were received before it kept sender "
            "records: listed, with their SHA-256, as landed before (who sent them cannot be told)") in err.getvalue()
    p = asz("verify", "--root", str(team))
    assert p.returncode == 0, p.stdout
    assert (f"landed before sender records were kept (_received/before.list, listed {got[0]['listed_at']} by asz "
            f"receive: {BEFORE_NONE}): {len(old_files)} landed file(s) of 1 session(s); who sent them cannot be told, "
            "the pushing hosts' receipts (asz verify --receipts) say what the receiver accepted") in p.stdout
    d = json.loads(asz("verify", "--root", str(team), "--json", "--receipts", str(hosts["a"]),
                       "--receipts", str(host_b)).stdout)
    assert (d["ok"], d["landed_before_records"], d["receipts_missing"]) == (True, len(old_files), 0)
    _push(host_b, team, PROJECTS["b"][1])  # a restart lists nothing again
    assert before.read_bytes() == b"".join(orjson.dumps(e) + b"\n" for e in got)


def test_a_record_removed_or_a_listed_file_changed_is_still_named(hosts, tmp_path):
    team = _copy(hosts["old"], tmp_path / "team")
    _push(_copy(hosts["b"], tmp_path / "b"), team, PROJECTS["b"][1])
    record = sorted((team / "_received").glob("*.senders"))[0]
    record.unlink()
    p = asz("verify", "--root", str(team))
    assert p.returncode == 1
    (line,) = [ln for ln in p.stdout.splitlines() if ln.startswith(f"{record}: sender record: ")]
    assert ("but no sender record, and _received/before.list (what landed before the root kept sender records) does "
            "not name them: the record was removed") in line
    before = team / "_received" / "before.list"
    entry = _lines(before)[0]
    before.write_bytes(before.read_bytes().replace(entry["sha256"].encode(), b"0" * 64))
    p = asz("verify", "--root", str(team))
    assert p.returncode == 1
    assert (f"{before}:1: sender record: its digest is not the SHA-256 of the rest of the line: the line was "
            "changed") in p.stdout
    assert (f"{before}:1: sender record [sha256]: {entry['file']} is not in the root with the SHA-256 this line keeps "
            f"(listed {entry['listed_at']} as landed before the root kept sender records)") in p.stdout


def test_records_begun_without_the_list_are_told_apart_at_the_receivers_start(hosts, tmp_path):
    """A root whose records an asz of sessions 19-22 began: no before.list. Until a receiver starts on it, the old
    session is a problem that says so; the start lists the files landed before the first sender line only."""
    team = _copy(hosts["old"], tmp_path / "team")
    _push(_copy(hosts["b"], tmp_path / "b"), team, PROJECTS["b"][1])
    (team / "_received" / "before.list").unlink()
    first = min(e["received_at"] for r in (team / "_received").glob("*.senders") for e in _lines(r))
    (old,) = {rel.split("/", 1)[0] for rel in sent_files(hosts["old"]) if not rel.startswith("_")}
    p = asz("verify", "--root", str(team))
    assert p.returncode == 1
    assert (f"{team / '_received' / old}.senders: sender record: session {old} holds 1 landed file(s) that asz receive "
            f"landed (no session.state: no collect pass wrote them here), but no sender record, and no "
            "_received/before.list: the record was removed, or they landed before asz receive kept records and no asz "
            "receive that lists such files in before.list has started on this root since (one lists them when it "
            "starts)") in p.stdout
    Receiver(team, "127.0.0.1:0", err=io.StringIO()).start().stop()
    got = _lines(team / "_received" / "before.list")
    assert [(e["file"].split("/", 1)[0], e["how"]) for e in got] == [(old, f"{BEFORE_EARLIER} ({first})")]
    assert asz("verify", "--root", str(team)).returncode == 0


def test_a_fresh_root_keeps_an_empty_list_so_a_record_removed_stays_a_problem(hosts, tmp_path):
    team = tmp_path / "team"
    _push(_copy(hosts["a"], tmp_path / "a"), team, PROJECTS["a"][1])
    assert (team / "_received" / "before.list").read_bytes() == b""
    next((team / "_received").glob("*.senders")).unlink()
    Receiver(team, "127.0.0.1:0", err=io.StringIO()).start().stop()  # a restart lists nothing as landed before
    assert (team / "_received" / "before.list").read_bytes() == b""
    p = asz("verify", "--root", str(team))
    assert p.returncode == 1 and "does not name them: the record was removed" in p.stdout, p.stdout


def test_receipts_of_another_receiver_are_said_with_the_ones_to_give(hosts, corpus_dir, tmp_path):
    """The host pushed to the team, then collected more and pushed to another receiver: its push.state is that one's.
    Given the host's root, verify finds its kept receipts of the team's endpoint and says to give those (exit 1);
    given a copy of a state none of whose files is in the root, it warns beside each missing file (exit 1)."""
    host = _copy(hosts["a"], tmp_path / "a")
    (host / "push.state").unlink()  # the fixture's push to the old root: not kept as a second endpoint here
    team = tmp_path / "team"
    team_endpoint = _push(host, team, PROJECTS["a"][1])
    shutil.copytree(corpus_dir / "claude-code" / "projects" / PROJECTS["c"][0], tmp_path / "src" / PROJECTS["c"][0])
    collect_corpus(tmp_path / "src", host, tmp_path / "more")
    other_endpoint = _push(host, tmp_path / "other", PROJECTS["a"][1])
    (kept,) = (host / "_export" / "endpoints").glob("*.state")
    p = asz("verify", "--root", str(team), "--receipts", str(host))
    assert p.returncode == 1, p.stdout
    state = host / "push.state"
    accepted, held = len(PushState.load(host).pushed), len(sent_files(team))
    assert held == len(PushState.load_file(kept).pushed)
    (line,) = [ln for ln in p.stdout.splitlines() if ln.startswith(f"{state}: receipts of another receiver")]
    assert (f"receipts of {state} (endpoint {other_endpoint}): {accepted} file(s) the receiver accepted: {held} in the "
            "root with that SHA-256; the rest not sent to this root's receiver: the receipts of another receiver"
            ) in p.stdout
    assert line == (
        f"{state}: receipts of another receiver [endpoint]: {accepted - held} of the {accepted} file(s) the receipts "
        f"of {state} say the receiver at {other_endpoint} accepted are not in this root, while its receipts of "
        f"{team_endpoint} ({kept}) find {held} of their {held} in it and hold none of those as accepted: these are "
        f"the receipts of another receiver than this root's; give --receipts {kept} (asz push --root HOST --endpoint "
        f"{team_endpoint} --receipts FILE writes them)")
    assert "missing since received" not in p.stdout
    d = json.loads(asz("verify", "--root", str(team), "--json", "--receipts", str(host)).stdout)
    assert (d["receipts_other_receiver"], d["receipts_missing"], d["ok"]) == (1, 0, False)
    p = asz("verify", "--root", str(team), "--receipts", str(kept))
    assert p.returncode == 0 and f"checked {held} receipt(s) of 1 host(s)" in p.stdout, p.stdout
    copy = tmp_path / "b.receipts"
    b_endpoint = _push(_copy(hosts["b"], tmp_path / "b"), tmp_path / "b-team", PROJECTS["b"][1])
    shutil.copyfile(tmp_path / "b" / "push.state", copy)
    p = asz("verify", "--root", str(team), "--receipts", str(copy))
    assert p.returncode == 1
    n = len(sent_files(hosts["b"]))
    assert (f"warning: {copy}: receipts of another receiver [endpoint]: none of the {n} file(s) the receipts of "
            f"{copy} say the receiver at {b_endpoint} accepted is in this root: if that is not the receiver that "
            "landed this root, these are another receiver's receipts: give that receiver's (asz push --root HOST "
            "--endpoint URL --receipts FILE writes the receipts a host keeps of URL); if it is, everything this host "
            "sent there was removed (each file is named below)\n") in p.stdout
    assert sum(": missing since received [file]: " in ln for ln in p.stdout.splitlines()) == n
