"""The provider pass: the seen table, sessions of responses, conflicts, cutting, verify (origin-digest §2.3, §5.3)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
from pathlib import Path

from asz_core.collect.provider_bodies import landed_share, provider_pass, read_table
from asz_core.sessiondata.providerbody import Session
from asz_core.storage.layout import provider_files
from asz_core.verify.walk import verify

from pb_capture import write_capture

SESSION = "9a91c2d4-0000-4000-8000-000000000001"
NOW = 1_767_225_600 * 10**9 + 3600 * 10**9


def run(root: Path, src: Path, budget: int = 2 << 20):
    err = io.StringIO()
    c = provider_pass(root, src, max_delta_bytes=budget, err=err, now_ns=lambda: NOW, fsync=False)
    return c, err.getvalue()


def test_inert_without_a_directory(tmp_path):
    c, _ = run(tmp_path / "root", tmp_path / "absent")
    assert c.landed == 0 and not (tmp_path / "root").exists()


def test_bodies_land_once_and_rebuild(tmp_path):
    files = write_capture(tmp_path / "src", calls=4)
    c, err = run(tmp_path / "root", tmp_path / "src")
    assert err == ""
    # the last response of each chain is named by no later request, and no transcript landed: it waits
    assert c.records == 14 and c.waiting == 2 and c.landed == 1
    table = read_table(tmp_path / "root")
    assert sorted({e.state for e in table.values()}) == ["landed", "waiting"]
    s = Session.open(provider_files(tmp_path / "root" / SESSION))
    for f in files:
        rid = f.name[: -len(".json")]
        if rid in s.records:
            assert s.body(rid) == f.read_bytes()
    again, _ = run(tmp_path / "root", tmp_path / "src")
    assert again.landed == 0 and again.records == 0 and again.waiting == 2
    assert verify(tmp_path / "root").ok


def test_a_waiting_response_lands_once_a_request_names_it(tmp_path):
    files = write_capture(tmp_path / "src", calls=2)
    last_resp = files[-1]
    c, _ = run(tmp_path / "root", tmp_path / "src")
    assert read_table(tmp_path / "root")[last_resp.name].state == "waiting"
    req = json.loads(files[-2].read_bytes())
    req["system"][0]["text"] = re.sub(r"cc_prev_req=[^;]*", "cc_prev_req=" + last_resp.name[: -len(".response.json")], req["system"][0]["text"])
    req["messages"].append({"role": "user", "content": [{"type": "text", "text": "next"}]})
    (tmp_path / "src" / "00000000-0000-4000-8000-00000000abcd.request.json").write_bytes(json.dumps(req).encode())
    c2, _ = run(tmp_path / "root", tmp_path / "src")
    assert read_table(tmp_path / "root")[last_resp.name].state == "landed"
    assert c2.records == 2 and c2.waiting == 1


def test_a_changed_body_file_is_a_conflict_until_restored(tmp_path):
    files = write_capture(tmp_path / "src", calls=2)
    run(tmp_path / "root", tmp_path / "src")
    f = files[0]
    original = f.read_bytes()
    f.write_bytes(original.replace(b"look at", b"LOOK AT"))
    os.utime(f, ns=(NOW - 300 * 10**9, NOW - 300 * 10**9))  # last written five minutes before the pass: settled
    c, err = run(tmp_path / "root", tmp_path / "src")
    assert c.conflicts == 1 and "conflict:" in err and c.records == 0
    # the line says what resolves it (both ways are checked: here and in the test below)
    assert err.rstrip("\n").endswith("the file is not landed again: put its bytes back, or move it out of the body "
                                      "directory (what landed stays), and the next asz collect clears the conflict")
    assert read_table(tmp_path / "root")[f.name].state == "conflict"
    c2, err2 = run(tmp_path / "root", tmp_path / "src")
    assert c2.conflicts == 1 and err2 == ""  # counted on every pass, told once
    f.write_bytes(original)
    c3, _ = run(tmp_path / "root", tmp_path / "src")
    assert c3.conflicts == 0 and read_table(tmp_path / "root")[f.name].state == "landed"
    assert len(provider_files(tmp_path / "root" / SESSION)) == 1  # never landed again


def test_a_changed_body_file_moved_out_clears_the_conflict(tmp_path):
    """The conflict line's other way on: the changed file moved out of the directory; what landed stays."""
    files = write_capture(tmp_path / "src", calls=2)
    run(tmp_path / "root", tmp_path / "src")
    f = files[0]
    f.write_bytes(f.read_bytes().replace(b"look at", b"LOOK AT"))
    os.utime(f, ns=(NOW - 300 * 10**9, NOW - 300 * 10**9))
    assert run(tmp_path / "root", tmp_path / "src")[0].conflicts == 1
    f.rename(tmp_path / f.name)
    c, err = run(tmp_path / "root", tmp_path / "src")
    assert (c.conflicts, err) == (0, "") and verify(tmp_path / "root").ok


def test_a_body_file_rewritten_moments_ago_is_changed_then_settles(tmp_path):
    """``changed``: different bytes, last written under two minutes ago; back to ``landed`` if restored, ``conflict`` once settled."""
    files = write_capture(tmp_path / "src", calls=2)
    run(tmp_path / "root", tmp_path / "src")
    f = files[0]
    original = f.read_bytes()
    f.write_bytes(original.replace(b"look at", b"LOOK AT"))
    os.utime(f, ns=(NOW - 10**10, NOW - 10**10))  # ten seconds before the pass
    c, err = run(tmp_path / "root", tmp_path / "src")
    assert (c.changed, c.conflicts, c.records, err) == (1, 0, 0, "")
    assert read_table(tmp_path / "root")[f.name].state == "changed" and " bodies_changed=1" in c.extra()
    f.write_bytes(original)  # the rewrite put the bytes back
    c2, _ = run(tmp_path / "root", tmp_path / "src")
    assert (c2.changed, c2.conflicts) == (0, 0) and read_table(tmp_path / "root")[f.name].state == "landed"
    f.write_bytes(original.replace(b"look at", b"LOOK AT"))
    os.utime(f, ns=(NOW - 10**10, NOW - 10**10))
    assert run(tmp_path / "root", tmp_path / "src")[0].changed == 1
    os.utime(f, ns=(NOW - 300 * 10**9, NOW - 300 * 10**9))  # nothing wrote it for five minutes: settled
    c3, err3 = run(tmp_path / "root", tmp_path / "src")
    assert (c3.changed, c3.conflicts) == (0, 1) and "conflict:" in err3
    assert read_table(tmp_path / "root")[f.name].state == "conflict"
    os.utime(f, ns=(NOW - 10**10, NOW - 10**10))  # a conflict stays one, however recent the next write
    assert run(tmp_path / "root", tmp_path / "src")[0].conflicts == 1
    assert len(provider_files(tmp_path / "root" / SESSION)) == 1  # nothing landed again


def test_a_rewrite_that_restores_size_and_mtime_is_still_seen(tmp_path):
    """The change time moves with any rewrite and no program can set it back; size and mtime can be."""
    import time

    files = write_capture(tmp_path / "src", calls=2)
    for g in files:  # written now, as Claude Code writes them (the capture dates them in the past with utime)
        g.write_bytes(g.read_bytes())
    run(tmp_path / "root", tmp_path / "src")
    f = files[0]
    before = f.stat()
    assert before.st_ctime_ns - before.st_mtime_ns <= 10**9  # written once: read once
    quiet, _ = run(tmp_path / "root", tmp_path / "src")
    assert quiet.changed == quiet.conflicts == quiet.errors == 0
    time.sleep(1.2)
    original = f.read_bytes()
    f.write_bytes(original.replace(b"look at", b"LOOK AT"))  # the same size
    os.utime(f, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = f.stat()
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    c, _ = run(tmp_path / "root", tmp_path / "src")
    assert c.changed + c.conflicts == 1
    assert read_table(tmp_path / "root")[f.name].state in ("changed", "conflict")


def test_unreadable_only_after_two_minutes(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    p = src / "00000000-0000-4000-8000-000000000001.request.json"
    p.write_bytes(b'{"model":')
    os.utime(p, ns=(NOW - 10**9, NOW - 10**9))
    c, _ = run(tmp_path / "root", src)
    assert c.unreadable == 0
    os.utime(p, ns=(NOW - 300 * 10**9, NOW - 300 * 10**9))
    c, _ = run(tmp_path / "root", src)
    assert c.unreadable == 1 and read_table(tmp_path / "root")[p.name].state == "unreadable"


def test_files_are_cut_at_the_budget_and_rebuild_across_them(tmp_path):
    files = write_capture(tmp_path / "src", calls=6)
    c, _ = run(tmp_path / "root", tmp_path / "src", budget=64 * 1024)
    assert c.landed > 1
    sizes = [p.stat().st_size for _, p in provider_files(tmp_path / "root" / SESSION)]
    # a body larger than the budget lands alone (and shrunk); otherwise files stay within it
    s = Session.open(provider_files(tmp_path / "root" / SESSION))
    for _, p in provider_files(tmp_path / "root" / SESSION):
        one = Session()
        n = one.load_file(p)
        assert p.stat().st_size <= 64 * 1024 or n == 1
    for f in files:
        rid = f.name[:-5]
        if rid in s.records:
            try:
                assert s.body(rid) == f.read_bytes()
            except Exception:
                assert s.body_from(rid, f.read_bytes()) == f.read_bytes()
    assert verify(tmp_path / "root").ok and sizes


def test_verify_finds_a_flipped_byte_in_a_landed_body(tmp_path):
    write_capture(tmp_path / "src", calls=2)
    run(tmp_path / "root", tmp_path / "src")
    (seq, path), = provider_files(tmp_path / "root" / SESSION)
    data = path.read_bytes()
    at = data.index(b'"lit":"{\\"model\\"') + 10
    flipped = data[:at] + (b"M" if data[at:at + 1] != b"M" else b"N") + data[at + 1:]
    os.chmod(path, 0o644)
    path.write_bytes(flipped)
    assert not verify(tmp_path / "root").ok  # the file's own digest no longer holds
    # the same byte flipped by someone who also fixed the closing line: only the rebuild tells
    lines = flipped.split(b"\n")
    body = b"\n".join(lines[:-2]) + b"\n"
    closing = b'{"t":"end","records":%d,"digest":"%s"}\n' % (len(lines) - 3, hashlib.sha256(body).hexdigest().encode())
    path.write_bytes(body + closing)
    report = verify(tmp_path / "root")
    problems = [p for p in report.problems if p.problem.startswith("provider")]
    assert problems and "sha256" in problems[0].detail + "".join(p.detail for p in problems)


def test_landed_share_of_a_two_chain_capture(tmp_path, capsys):
    """The original landed 25.5% and 21.6% of the bytes Claude Code wrote (origin-digest §10)."""
    files = write_capture(tmp_path / "src", calls=15)
    written = sum(f.stat().st_size for f in files)
    c, _ = run(tmp_path / "root", tmp_path / "src")
    landed, described = landed_share(tmp_path / "root")
    share = landed / written
    with capsys.disabled():
        print(f"\nprovider bodies: {c.records} bodies, landed {landed} of {written} bytes written = {share:.1%} "
              f"(original: 25.5% and 21.6%)")
    assert share <= 0.26
    assert verify(tmp_path / "root").ok


def test_a_waiting_response_lands_once_its_transcript_line_has_landed(tmp_path):
    """In a later pass, with its requests landed long before: the session's transcript holding its id decides."""
    from asz_core.sessiondata import Header, Record
    from asz_core.storage.root import SessionWriter

    files = write_capture(tmp_path / "src", calls=2)
    run(tmp_path / "root", tmp_path / "src")
    waiting = sorted(n for n, e in read_table(tmp_path / "root").items() if e.state == "waiting")
    assert len(waiting) == 2
    call = json.loads((tmp_path / "src" / waiting[0]).read_bytes())["id"]
    w = SessionWriter.open(tmp_path / "root", SESSION, fsync=False)
    sd = w.start(Header(kind="transcript", session=SESSION, src="p/x.jsonl", dialect="claude-code/1", stream="main"))
    sd.write(Record(ord=1, off=0, sha="0" * 12, bytes=10, id="u1", call=call, from_="agent"))
    w.finish(sd)
    c, _ = run(tmp_path / "root", tmp_path / "src")
    assert c.records == 1 and c.waiting == 1
    table = read_table(tmp_path / "root")
    assert table[waiting[0]].state == "landed" and table[waiting[0]].join == call
    assert Session.open(provider_files(tmp_path / "root" / SESSION)).body(waiting[0][:-5]) == (tmp_path / "src" / waiting[0]).read_bytes()
    assert files


def test_bodies_of_an_erased_session_never_land_again(tmp_path):
    """asz erase (docs/storage-root.md, Erasure): the bodies still in the directory are excluded, not landed into a
    session directory made anew."""
    from asz_core.retention.erase import erase

    write_capture(tmp_path / "src", calls=4)
    c, _ = run(tmp_path / "root", tmp_path / "src")
    assert c.landed == 1 and (tmp_path / "root" / SESSION / "provider_body").is_dir()
    rep = erase(tmp_path / "root", [SESSION], "request 1", by="officer@archive")
    assert [s for s, _, _ in rep.erased] == [SESSION] and not rep.problems
    assert not (tmp_path / "root" / SESSION).exists()
    again, err = run(tmp_path / "root", tmp_path / "src")
    assert again.landed == 0 and again.records == 0 and err == ""
    assert not (tmp_path / "root" / SESSION).exists()
    named = [e for e in read_table(tmp_path / "root").values() if e.session == SESSION]
    assert named and {e.state for e in named} == {"excluded"}
    assert verify(tmp_path / "root").ok
