"""Who sent what to a team root (trial 19: F3, F17, F20): ``asz receive`` records, beside the landed files and
without changing a byte of them, the instance id, the time and the token's credential name of each file it lands
(``_received/<session>.senders``), ``asz verify`` checks that record, and ``asz ls`` / ``asz usage`` read it.

Real input: two corpus projects collected by the real ``asz collect --once`` into two worker roots, pushed by the real
pass over gRPC and HTTP to a real loopback receiver whose token file gives each worker its own credential.
"""

from __future__ import annotations

import hashlib
import html
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import forked
import orjson
import pytest

from asz_core.export.credentials import read_token_file

from cli_helpers import write_secret
from export_helpers import ASZ, asz, pushed_team, sent_files

WORKERS = {"a": ("-home-user-spotter", "dev@hostA", "alice", "tokA-1", "grpc"),
           "b": ("-home-user-sample-project", "dev@hostB", "bob", "tokB-2", "http")}


@pytest.fixture(scope="module")
def team(corpus_dir, tmp_path_factory) -> dict:
    """Both workers collected and pushed to one receiver: the team root, the worker roots, the token file."""
    return pushed_team(corpus_dir, tmp_path_factory.mktemp("senders"), WORKERS)


def _records(team_root: Path) -> list[dict]:
    return [orjson.loads(line) for p in sorted((team_root / "_received").glob("*.senders"))
            for line in p.read_bytes().splitlines()]


def test_each_landed_file_names_its_sender_and_no_landed_byte_changes(team):
    landed = {rel: d for rel, d in sent_files(team["team"]).items() if rel.endswith(".sd")}
    records = _records(team["team"])
    assert {r["file"]: r["sha256"] for r in records} == landed  # one line per landed file, its bytes' digest
    for key, root in team["roots"].items():
        _, instance, credential, token, _ = WORKERS[key]
        mine = {rel: d for rel, d in sent_files(root).items() if rel.endswith(".sd")}
        assert mine and all(landed[rel] == d for rel, d in mine.items())  # byte for byte what the worker landed
        lines = [r for r in records if r["file"] in mine]
        assert {(r["instance"], r["credential"], r["service"]) for r in lines} == {(instance, credential, "Claude Code")}
        assert all(r["received_at"].endswith("Z") for r in lines)
    text = b"".join(p.read_bytes() for p in (team["team"] / "_received").iterdir())
    assert b"tokA-1" not in text and b"tokB-2" not in text  # never a token


def test_verify_checks_the_record_and_names_who_sent(team, tmp_path):
    p = asz("verify", "--root", str(team["team"]))
    assert p.returncode == 0, p.stdout + p.stderr
    n_a = len([r for r in sent_files(team["roots"]["a"]) if r.endswith(".sd")])
    n_b = len([r for r in sent_files(team["roots"]["b"]) if r.endswith(".sd")])
    assert (f"received (sender record, _received/): {n_a + n_b} landed file(s): {n_a} from dev@hostA (credential alice), "
            f"{n_b} from dev@hostB (credential bob)") in p.stdout
    copy = tmp_path / "team"
    shutil.copytree(team["team"], copy, symlinks=True)
    rec = max((copy / "_received").glob("*.senders"), key=lambda p: p.stat().st_size)
    lines = rec.read_bytes().splitlines(keepends=True)
    assert len(lines) >= 2
    edited = [lines[0].replace(b"dev@host", b"dev@evil"), *lines[1:]]  # a sender rewritten after the fact
    rec.write_bytes(b"".join(edited))
    bad = asz("verify", "--root", str(copy))
    assert bad.returncode == 1
    assert ".senders:1: sender record: its digest is not the SHA-256 of the rest of the line" in bad.stdout
    assert ".senders:2: sender record: prev is not the SHA-256 of the line before it" in bad.stdout
    rec.write_bytes(b"".join(lines[1:]))  # the first line left out
    assert ".senders:1: sender record: prev is not the SHA-256" in asz("verify", "--root", str(copy)).stdout
    rec.write_bytes(b"".join(lines))
    gone = next(p for p in copy.rglob("*.sd") if p.name.endswith("-000001.sd") and p.parent.parent.parent.name in rec.name)
    gone.chmod(0o644)
    gone.unlink()  # a landed file the record names, gone
    assert f"sender record [sha256]: {gone.relative_to(copy).as_posix()} is not in the root" in asz("verify", "--root", str(copy)).stdout


def test_ls_and_usage_read_the_senders(team):
    rows = json.loads(asz("ls", "--root", str(team["team"]), "--json").stdout)
    assert {r["senders"][0]["instance"] for r in rows} == {"dev@hostA", "dev@hostB"}
    only_b = json.loads(asz("ls", "--root", str(team["team"]), "--json", "--instance", "BOB").stdout)
    assert [r["senders"][0]["credential"] for r in only_b] == ["bob"] * len(only_b) and only_b
    talk = asz("conversation", only_b[0]["id"], "--root", str(team["team"])).stdout.splitlines()
    assert talk[1].startswith(f"sent by dev@hostB (credential bob): {only_b[0]['senders'][0]['files']} landed file(s), "
                              f"received {only_b[0]['senders'][0]['first_received']}")
    audit = json.loads(asz("export", only_b[0]["id"], "--root", str(team["team"]), "--audit").stdout.splitlines()[0])
    assert audit["kind"] == "conversation" and audit["senders"] == only_b[0]["senders"]
    plain_audit = asz("export", only_b[0]["id"], "--root", str(team["roots"]["b"]), "--audit").stdout.splitlines()[0]
    assert "senders" not in json.loads(plain_audit)  # the worker's own root: the header as before
    none = asz("ls", "--root", str(team["team"]), "--instance", "nobody")
    assert none.returncode == 1 and "--instance" in none.stderr
    by = {r["instance"]: r for r in json.loads(asz("usage", "instance", "--root", str(team["team"]), "--json").stdout)}
    for key, root in team["roots"].items():
        own = json.loads(asz("usage", "--root", str(root), "--json").stdout)[0]["total"]
        label = f"{WORKERS[key][1]} (credential {WORKERS[key][2]})"  # the id and the credential checked (trial 34c F7)
        assert by[label]["cost"] == own["cost"] and by[label]["calls"] == own["calls"]
        one = json.loads(asz("usage", "--root", str(team["team"]), "--json", "--instance", WORKERS[key][1]).stdout)
        assert one[0]["total"]["calls"] == own["calls"]
    plain = json.loads(asz("usage", "instance", "--root", str(team["roots"]["a"]), "--json").stdout)
    # a worker (pushing) root: its own history is this host's, not "(not received)" (trial 34b F6)
    assert [(r["instance"], r["calls"]) for r in plain] == [("this host", json.loads(
        asz("usage", "--root", str(team["roots"]["a"]), "--json").stdout)[0]["total"]["calls"])]
    assert "this host" not in by and "(not received)" not in by  # the team root: every row a sender


def test_token_file_forms(tmp_path):
    one = tmp_path / "one"
    write_secret(one, "s3cret\n")
    assert read_token_file(one) == {"": "s3cret"}
    for text, words in (("a t1\na t2\n", "given twice"), ("a t1\nb t1\n", "another name's token"),
                        ("a b c\nd e\n", "expected 'NAME TOKEN'"), ("", "no token"), ("../x t1\ny t2\n", "not a credential name")):
        write_secret(one, text)
        with pytest.raises(ValueError, match=words) as exc:
            read_token_file(one)
        assert "t1" not in str(exc.value) and "t2" not in str(exc.value)


def _start(args: list[str], env: dict | None = None) -> tuple[subprocess.Popen, str, str]:
    """``asz receive ARGS`` as a child; its stderr up to the ``receiving:`` line (warnings before it), and the address."""
    p = subprocess.Popen([*ASZ, "receive", "--listen", "127.0.0.1:0", *args], stderr=subprocess.PIPE, text=True,
                         env={**os.environ, **(env or {})})
    said = ""
    while True:
        line = p.stderr.readline()
        said += line
        if not line or line.startswith("receiving:"):
            break
    return p, said, said.rsplit(" on ", 1)[-1].split(" into ")[0] if "receiving:" in said else ""


def _status(address: str, token: str | None) -> int:
    host, port = address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    headers = {"Content-Type": "application/x-protobuf", **({"Authorization": f"Bearer {token}"} if token else {})}
    try:
        conn.request("POST", "/v1/logs", body=b"", headers=headers)
        return conn.getresponse().status
    finally:
        conn.close()


@pytest.mark.parametrize("how", ["--token", "env", "--token-file"])
def test_receive_token_sources(how, tmp_path):
    """F20: --token still works but says on stderr that ps shows it; $ASZ_RECEIVE_TOKEN and --token-file do not."""
    write_secret(tmp_path / "tok", "s3cret\n")
    args = {"--token": ["--token", "s3cret"], "env": [], "--token-file": ["--token-file", str(tmp_path / "tok")]}[how]
    p, said, address = _start(["--root", str(tmp_path / "r"), *args], {"ASZ_RECEIVE_TOKEN": "s3cret"} if how == "env" else None)
    try:
        assert address, said
        assert ("warning: --token puts the token on the command line" in said) == (how == "--token")
        assert "s3cret" not in said
        assert (_status(address, None), _status(address, "wrong"), _status(address, "s3cret")) == (401, 401, 200)
    finally:
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=30) == 0
        p.stderr.close()


def test_receive_token_file_that_does_not_read_is_a_usage_error(tmp_path):
    write_secret(tmp_path / "tok", "a x y z\n")
    p = forked.run([*ASZ, "receive", "--root", str(tmp_path / "r"), "--token-file", str(tmp_path / "tok")],
                   capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "expected 'NAME TOKEN'" in p.stderr and "x y z" not in p.stderr


def test_each_conversation_names_its_sender_in_the_ls_table_and_usage_session(team):
    """trial 19, F3 (which host, from the team root): the ls table has SENT BY before STATE, and usage session names
    the instance after each id, each the instance the worker pushed with; a worker's own root keeps its columns."""
    rows = {r["id"]: f"{r['senders'][0]['instance']} (credential {r['senders'][0]['credential']})"  # trial 34c F7
            for r in json.loads(asz("ls", "--root", str(team["team"]), "--json").stdout)}
    assert set(rows.values()) == {f"{w[1]} (credential {w[2]})" for w in WORKERS.values()}
    table = asz("ls", "--root", str(team["team"])).stdout.splitlines()
    head = table[0].split()
    assert head[-3:] == ["SENT", "BY", "STATE"], table[0]
    shown = {line.split()[0]: re.search(r"  (dev@host\w \(credential \w+\))  ", line).group(1) for line in table[1:1 + len(rows)]}
    assert shown == {cid[:8]: inst for cid, inst in rows.items()}, table
    usage = json.loads(asz("usage", "session", "--root", str(team["team"]), "--json").stdout)
    assert {r["conversation"]: r["instance"] for r in usage} == rows
    text = asz("usage", "session", "--root", str(team["team"])).stdout.splitlines()
    ids = {r["id"][:8]: r["senders"][0]["instance"] for r in json.loads(asz("ls", "--root", str(team["team"]), "--json").stdout)}
    for line in text[1:1 + len(rows)]:  # the label after the id, `(dev@hostA (credential alice))`, cut to the key's width
        assert line.split()[1].startswith(f"({ids[line.split()[0]]}"), line
    for key, root in team["roots"].items():  # a root no receiver landed: as before
        assert "SENT BY" not in asz("ls", "--root", str(root)).stdout
        assert all("instance" not in r for r in json.loads(asz("usage", "session", "--root", str(root), "--json").stdout))


def test_a_shared_export_names_its_sender(team, tmp_path):
    """A conversation exported as md or html from the team root says who sent it, in asz conversation's words; from
    the worker's own root it does not (nothing was received there)."""
    rows = json.loads(asz("ls", "--root", str(team["team"]), "--json").stdout)
    for row in rows:
        said = asz("conversation", row["id"], "--root", str(team["team"])).stdout.splitlines()[1]
        assert said.startswith(f"sent by {row['senders'][0]['instance']} (credential ")
        md = asz("export", row["id"], "--root", str(team["team"]), "--format", "md").stdout.splitlines()
        assert f"- {said}" in md[:6], md[:6]
        out = tmp_path / f"{row['id']}.html"
        asz("export", row["id"], "--root", str(team["team"]), "--format", "html", "--out", str(out))
        assert f'<p class="meta">{html.escape(said)}</p>' in out.read_text()
    for root in team["roots"].values():
        for row in json.loads(asz("ls", "--root", str(root), "--json").stdout):
            md = asz("export", row["id"], "--root", str(root), "--format", "md").stdout
            assert "sent by" not in md.split("## ", 1)[0]


def test_export_keeps_one_instances_conversations(team):
    """Trial 22a, F21: ``asz export --instance`` keeps what ``asz ls --instance`` keeps (the same filter), each
    audit header naming that sender; an instance that sent nothing matches nothing (exit 1, said)."""
    checked = 0
    for key in WORKERS:
        _, instance, credential, _, _ = WORKERS[key]
        listed = json.loads(asz("ls", "--root", str(team["team"]), "--json", "--instance", credential.upper()).stdout)
        p = asz("export", "--instance", credential.upper(), "--audit", "--root", str(team["team"]))
        assert p.returncode == 0, p.stderr
        heads = [json.loads(x) for x in p.stdout.splitlines() if json.loads(x)["kind"] == "conversation"]
        assert listed and sorted(h["conversation"] for h in heads) == sorted(r["id"] for r in listed)
        assert {(s["instance"], s["credential"]) for h in heads for s in h["senders"]} == {(instance, credential)}
        # --in-range-only: the senders of the files the window's lines come from only (8463c716's subagents end by
        # 22:38:47, its main stream goes on to 22:54:29: after 22:40 only the main stream's files)
        window = ("--since", "2026-02-11T22:40:00Z", "--until", "2026-02-12", "--tz", "UTC", "--in-range-only")
        days = asz("export", "--instance", credential.upper(), "--audit", "--root", str(team["team"]), *window).stdout
        for h in (json.loads(x) for x in days.splitlines() if '"kind":"conversation"' in x):
            files = {json.loads(x).get("file") for x in days.splitlines() if json.loads(x)["conversation"] == h["conversation"]}
            (s,) = h["senders"]
            whole = [x for x in heads if x["conversation"] == h["conversation"]][0]["senders"][0]["files"]
            assert (s["instance"], s["credential"], s["files"]) == (instance, credential, len(files - {None}))
            assert s["files"] < whole and {f.split("/")[2] for f in files - {None}} == {"main"}
            checked += 1
    assert checked == 1
    none = asz("export", "--instance", "nobody", "--audit", "--root", str(team["team"]))
    assert none.returncode == 1 and "no conversation matched --instance nobody" in none.stderr and none.stdout == ""


@pytest.mark.parametrize("forger", ["digest left", "digest recomputed"])
def test_a_changed_sender_line_names_no_sender_in_any_reader(team, tmp_path, forger):
    """Trial 25b F6: a sender line rewritten to name the other host was shown as fact by asz ls (SENT BY), asz
    conversation, asz usage instance and verify's own count. A line whose digest fails, or at whose line or the next
    the chain breaks (a forger who recomputed the line's own digest), names no sender: its files are counted as
    '(sender record does not verify)'; the untouched lines of other records still name theirs."""
    copy = tmp_path / "team"
    shutil.copytree(team["team"], copy, symlinks=True)
    rec = max((copy / "_received").glob("*.senders"), key=lambda p: p.stat().st_size)
    lines = rec.read_bytes().splitlines(keepends=True)
    first = orjson.loads(lines[0])
    real = first["instance"]
    other = next(w[1] for w in WORKERS.values() if w[1] != real)
    forged = {**first, "instance": other}
    if forger == "digest recomputed":
        forged["digest"] = hashlib.sha256(orjson.dumps({k: v for k, v in forged.items() if k != "digest"})).hexdigest()
    rec.write_bytes(orjson.dumps(forged) + b"\n" + b"".join(lines[1:]))
    session = rec.name[:-len(".senders")]
    suspect = 2 if len(lines) > 1 else 1  # the changed line, and the next whose prev no longer holds
    p = asz("verify", "--root", str(copy))
    assert p.returncode == 1
    assert f"{suspect} whose sender line does not verify (named above)" in p.stdout
    row = next(r for r in json.loads(asz("ls", "--root", str(copy), "--json").stdout) if r["id"].startswith(session[:8]))
    (broken,) = [s for s in row["senders"] if s.get("unverified")]
    assert broken["files"] == suspect and broken["instance"] is None and broken["credential"] is None
    assert broken["first_received"] is None and broken["last_received"] is None  # a changed line's time is no fact
    assert {s["instance"] for s in row["senders"] if s is not broken} <= {real}  # the forged name is nowhere
    table = asz("ls", "--root", str(copy)).stdout
    assert "(sender record does not verify)" in next(x for x in table.splitlines() if x.startswith(row["id"][:8]))
    said = asz("conversation", row["id"], "--root", str(copy)).stdout.splitlines()[1]
    assert f"the sender record of {suspect} landed file(s) does not verify" in said
    by = {r["instance"]: r for r in json.loads(asz("usage", "instance", "--root", str(copy), "--json").stdout)}
    assert any("(sender record does not verify)" in k for k in by)  # a conversation's senders, joined as asz ls joins them
    whole = json.loads(asz("usage", "instance", "--root", str(team["team"]), "--json").stdout)
    assert sum(r["calls"] for r in by.values()) == sum(r["calls"] for r in whole)  # nothing lost, nothing counted twice


def test_a_line_between_that_reads_as_none_leaves_the_sender_line_before_unverified(tmp_path):
    """A sender line replaced by bytes that read as no sender line breaks the next line's ``prev``; the sender line
    before it, which nothing vouches for now, is marked as not verifying under its own line number (1), not the
    replaced one's (2). Written by the receiver's own writer (``append_chained``), read as every reader reads it."""
    from asz_core.storage.senders import UNVERIFIED, append_chained, read_senders

    path = tmp_path / "s.senders"
    append_chained(path, [{"file": f"f{i}.sd", "instance": "dev@hostA", "received_at": f"2026-12-04T00:00:0{i}Z"}
                          for i in (1, 2, 3)])
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0] + b"not json\n" + lines[2])
    got = read_senders(path)
    assert [(e["file"], e.get(UNVERIFIED)) for e in got.entries] == [("f1.sd", "line 1"), ("f3.sd", "line 3")]
    assert [p.split(":")[0] for p in got.problems] == ["line 2", "line 3"]
