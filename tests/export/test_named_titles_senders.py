"""On a receiving root a ``summary`` in one sender's file titles only its own sender's conversations (session 43).

Claude Code writes ``{"type":"summary","summary":…,"leafUuid":…}`` into the transcript it resumes in, naming the last
message of the conversation it summarises; a summary in another session's file titles that conversation when nothing
of its own does (trial 41c F2). Session 42's review: on a team root, bob could so title alice's conversation by
naming one of its message ids. Real input: alice pushes a copy of the corpus's sample-project transcript, bob a copy
of spotter's short one plus written lines, each with its own credential, to a real loopback receiver; bob's lines
hold a summary naming a message id of alice's transcript (read from its source file: not taken) and one naming a
message of his own other session (taken). Alice's later push lands her own summary naming her transcript's message:
taken, though it lands after her conversation's row, search row and page caches were made (their keys change).
Bob's session sorts after alice's, so before the rule his summary was the last and titled her conversation. Last,
alice's sender line changed by hand (it no longer verifies) names no one: her summary then titles nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from asz_core.export.credentials import read_token_file
from asz_core.export.push import push
from asz_core.export.receive import Receiver
from asz_core.export.settings import ExportConfig

from cli_helpers import asz_in_process, write_secret
from export_helpers import asz, page_json

ALICE_T = ("-home-user-sample-project", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7")
BOB_C = ("-home-user-spotter", "55604662-cf2a-4331-851a-ec234028f8ca")
B1 = "ffffffff-0000-4000-8000-00000000000b"  # bob's: names alice's message, then his own B2's
B2 = "eeeeeeee-0000-4000-8000-00000000000e"
A2 = "aaaaaaaa-0000-4000-8000-00000000000a"  # alice's, second push: names her own transcript's message
HIJACK, BOBS_OWN, ALICES_OWN = "Bob titles alice's work", "Bob's docs session", "Alice's parser session"
HOSTS = {"alice": ("alice@hostA", "tokA-43", "http"), "bob": ("bob@hostB", "tokB-43", "grpc")}


def _lines(sid: str, word: str, summaries: list[tuple[str, str]]) -> str:
    """A written session: its summaries (text, leafUuid), then a typed prompt ``Write the WORD module`` and its answer."""
    recs = [{"type": "summary", "summary": text, "leafUuid": leaf} for text, leaf in summaries]
    base = {"sessionId": sid, "cwd": "/home/dev/app", "version": "1.0.0", "isSidechain": False, "userType": "external"}
    recs.append({**base, "type": "user", "uuid": f"{sid[:8]}-1", "parentUuid": None, "timestamp": "2026-01-02T10:00:00Z",
                 "message": {"role": "user", "content": f"Write the {word} module"}})
    recs.append({**base, "type": "assistant", "uuid": f"{sid[:8]}-2", "parentUuid": f"{sid[:8]}-1",
                 "timestamp": "2026-01-02T10:00:05Z", "requestId": f"req_{sid[:8]}",
                 "message": {"id": f"msg_{sid[:8]}", "role": "assistant", "model": "claude-x", "stop_reason": "end_turn",
                             "content": [{"type": "text", "text": f"the {word} module is written"}],
                             "usage": {"input_tokens": 3, "output_tokens": 5}}})
    return "".join(json.dumps(r) + "\n" for r in recs)


def _last_uuid(path: Path) -> str:
    """The ``uuid`` of the transcript's last line that has one, read from the source file."""
    got = [d["uuid"] for d in map(json.loads, path.read_text(encoding="utf-8").splitlines()) if d.get("uuid")]
    assert got
    return got[-1]


def _collect_and_push(base: Path, tokens: Path) -> None:
    """Each host's source collected by the real ``asz collect --once`` into ``base/HOST/root`` and pushed by the real
    pass to one real loopback receiver (its token file names alice and bob) into ``base/team``."""
    rcv = Receiver(base / "team", "127.0.0.1:0", token=read_token_file(tokens)).start().serve_in_thread()
    try:
        for host, (instance, token, proto) in HOSTS.items():
            p = asz("collect", "--once", "--adapter", "claude-code-local", "--source", str(base / host / "projects"),
                    "--root", str(base / host / "root"), cwd=base / host, child=True)
            assert p.returncode == 0 and " errors=0 " in p.stdout, p.stdout + p.stderr
            cfg = ExportConfig(instance_id=instance, headers={"Authorization": f"Bearer {token}"})
            rep = push(base / host / "root", cfg, endpoint=f"{proto}://{rcv.address}")
            assert rep.ok, rep.problems
    finally:
        rcv.stop()


def _titles(team: Path, sids: list[str], word: str, cwd: Path) -> dict[str, dict[str, str]]:
    """{reader: {sid: title}} as ``asz ls --json``, ``asz ls``'s table, ``asz conversation --json``, the md export's
    head, ``asz push``'s ``asz.conversation.title`` of the head round, ``asz search WORD`` hits and the page's
    ``/api/conversations`` give each of ``sids``."""
    from asz_core.export.wire import RoundTitles

    got: dict[str, dict[str, str]] = {}
    rows = json.loads(asz_in_process("ls", "--json", "--root", str(team)).stdout)
    got["ls"] = {r["id"]: r["title"] for r in rows if r["id"] in sids}
    table = asz_in_process("ls", "--root", str(team)).stdout.splitlines()
    got["table"] = {s: next(t for t in table if t.startswith(s[:8])) for s in sids}
    got["doc"] = {s: json.loads(asz_in_process("conversation", s, "--json", "--root", str(team)).stdout)["summary"]["title"]
                  for s in sids}
    got["md"] = {s: asz_in_process("export", s, "--format", "md", "--root", str(team)).stdout.splitlines()[0] for s in sids}
    sent = RoundTitles(team)
    got["push"] = {s: sent(max((team / "_conversations" / s / "rounds").glob("*.sf")).read_bytes()) for s in sids}
    p = asz_in_process("search", word, "--json", "--root", str(team))
    assert p.returncode == 0, p.stderr
    got["search"] = {h["conversation"]: h["title"] for h in json.loads(p.stdout) if h["conversation"] in sids}
    page = page_json(team, "/api/conversations", cwd, done=lambda got: not any(r.get("counting") for r in got["conversations"]))
    got["page"] = {r["id"]: r["title"] for r in page["conversations"] if r["id"] in sids}
    return got


def _assert_titled(got: dict[str, dict[str, str]], want: dict[str, str]) -> None:
    for reader in ("ls", "doc", "push", "page"):
        assert got[reader] == want, (reader, got[reader])
    for s, title in want.items():
        cell = got["table"][s].split("  ")[1]  # the table's TITLE, cut with … when long
        assert cell == title or (cell.endswith("…") and title.startswith(cell[:-1])), got["table"][s]
        assert got["md"][s] == f"# {title}", got["md"][s]
        assert got["search"][s] == title, got["search"]  # both hold the word searched for


@pytest.mark.slow  # 7-17 s by load: two collects, two pushes and two asz view children, twice
def test_a_summary_titles_only_its_own_senders_conversation(corpus_projects, tmp_path):
    t_src = corpus_projects / ALICE_T[0] / f"{ALICE_T[1]}.jsonl"
    b_src = corpus_projects / BOB_C[0] / f"{BOB_C[1]}.jsonl"
    if not t_src.is_file() or not b_src.is_file():
        pytest.skip(f"the corpus transcripts {t_src.name} and {b_src.name} are absent")
    leaf = _last_uuid(t_src)  # a message of alice's transcript, from its source
    for host, (project, sid) in (("alice", ALICE_T), ("bob", BOB_C)):
        (tmp_path / host / "projects" / project).mkdir(parents=True)
        shutil.copy(corpus_projects / project / f"{sid}.jsonl", tmp_path / host / "projects" / project)
    bob = tmp_path / "bob" / "projects" / BOB_C[0]
    (bob / f"{B1}.jsonl").write_text(_lines(B1, "greeting", [(HIJACK, leaf)]))
    (bob / f"{B2}.jsonl").write_text(_lines(B2, "farewell", [(BOBS_OWN, f"{B1[:8]}-2")]))
    tokens = tmp_path / "tokens"
    write_secret(tokens, "".join(f"{h} {tok}\n" for h, (_, tok, _) in HOSTS.items()))
    _collect_and_push(tmp_path, tokens)
    team = tmp_path / "team"

    # alice's own root holds no other sender's lines: its title of her transcript is the one her conversation keeps
    own = {r["id"]: r["title"] for r in json.loads(asz_in_process("ls", "--json", "--root", str(tmp_path / "alice" / "root")).stdout)}
    t = ALICE_T[1]
    assert own[t] not in (HIJACK, ALICES_OWN) and own[t]
    got = _titles(team, [t, B1], "module", tmp_path)
    _assert_titled(got, {t: own[t], B1: BOBS_OWN})  # bob's summary of his own B1 titles it: one sender
    assert not any(HIJACK in v for reader in got.values() for v in reader.values())

    # alice's later push: her own summary naming her transcript's message titles it, read again everywhere
    (tmp_path / "alice" / "projects" / ALICE_T[0] / f"{A2}.jsonl").write_text(_lines(A2, "parser", [(ALICES_OWN, leaf)]))
    _collect_and_push(tmp_path, tokens)
    got = _titles(team, [t, B1], "module", tmp_path)
    _assert_titled(got, {t: ALICES_OWN, B1: BOBS_OWN})
    rows = {r["id"]: r for r in json.loads(asz_in_process("ls", "--json", "--root", str(team)).stdout)}
    senders = [[(e["instance"], e["credential"]) for e in rows[s]["senders"]] for s in (t, A2, B1, B2)]
    assert senders == [[("alice@hostA", "alice")]] * 2 + [[("bob@hostB", "bob")]] * 2

    # a sender line changed by hand names no one (its digest fails): alice's summary then titles nothing
    record = team / "_received" / f"{A2}.senders"
    record.write_bytes(record.read_bytes().replace(b'"instance":"alice@hostA"', b'"instance":"alice@hostZ"', 1))
    titles = {r["id"]: r["title"] for r in json.loads(asz_in_process("ls", "--json", "--root", str(team)).stdout)}
    assert titles[t] == own[t] and titles[B1] == BOBS_OWN


def _as_titled_then(copy: Path, older: Path, title: str) -> None:
    """The text copy ``copy`` (and its manifest) made on the team root as an asz before the same-sender rule (faf0348a)
    made it there: its title line ``title``, the manifest's ``title`` the one the same export names on ``older`` (a copy
    of the team root without sender records, where every label counts, as that rule did), and the copy's size, SHA-256
    and line digests as the manifest keeps them (what the export wrote: bytes, ``sha256``, each line's SHA-256 cut to
    16 hex digits)."""
    import hashlib

    lines = copy.read_bytes().split(b"\n")
    assert lines[1].startswith(b"title: ")
    lines[1] = f"title: {title}".encode()
    data = b"\n".join(lines)
    copy.write_bytes(data)
    manifest = Path(f"{copy}.manifest.json")
    m = json.loads(manifest.read_text())
    then = json.loads(Path(f"{older}.manifest.json").read_text())
    assert m["export"]["lines"][1] != hashlib.sha256(lines[1]).hexdigest()[:16]
    m["export"].update(bytes=len(data), sha256=hashlib.sha256(data).hexdigest())
    m["export"]["lines"][1] = hashlib.sha256(lines[1]).hexdigest()[:16]
    m["conversations"][0]["title"] = then["conversations"][0]["title"]
    manifest.write_text(json.dumps(m))


@pytest.mark.slow  # two collects and two pushes, an export and its verify
def test_a_copy_titled_by_another_senders_summary_still_verifies_and_is_said_not_taken_now(corpus_projects, tmp_path):
    """A copy made before the rule (faf0348a) whose title came from bob's summary of alice's conversation: its manifest
    names bob's file. Written as that asz wrote it (:func:`_as_titled_then`): the team root's text copy, its title line
    and manifest's ``title`` those the same export gives on a copy of the team root without ``_received/`` (no sender
    records: every label counts, the older rule). ``asz verify --export``
    on the team root remakes it with that title (it still verifies) and says today's rule does not take it (close43)."""
    t_src = corpus_projects / ALICE_T[0] / f"{ALICE_T[1]}.jsonl"
    if not t_src.is_file() or not (corpus_projects / BOB_C[0] / f"{BOB_C[1]}.jsonl").is_file():
        pytest.skip("the corpus transcripts are absent")
    for host, (project, sid) in (("alice", ALICE_T), ("bob", BOB_C)):
        (tmp_path / host / "projects" / project).mkdir(parents=True)
        shutil.copy(corpus_projects / project / f"{sid}.jsonl", tmp_path / host / "projects" / project)
    (tmp_path / "bob" / "projects" / BOB_C[0] / f"{B1}.jsonl").write_text(_lines(B1, "greeting", [(HIJACK, _last_uuid(t_src))]))
    tokens = tmp_path / "tokens"
    write_secret(tokens, "".join(f"{h} {tok}\n" for h, (_, tok, _) in HOSTS.items()))
    _collect_and_push(tmp_path, tokens)
    team, older, t = tmp_path / "team", tmp_path / "older", ALICE_T[1]
    shutil.copytree(team, older, ignore=lambda d, names: ["_received"] if Path(d) == team else [])
    titled = {r["id"]: r["title"] for r in json.loads(asz_in_process("ls", "--json", "--root", str(older)).stdout)}
    now = {r["id"]: r["title"] for r in json.loads(asz_in_process("ls", "--json", "--root", str(team)).stdout)}
    assert titled[t] == HIJACK and now[t] != HIJACK  # the older rule's title, and today's
    then, copy = tmp_path / "then.txt", tmp_path / "t.txt"
    assert asz_in_process("export", t, "--format", "text", "--root", str(older), "--out", str(then)).returncode == 0
    assert f"title: {HIJACK}\n" in then.read_text()
    (conv,) = json.loads((tmp_path / "then.txt.manifest.json").read_text())["conversations"]
    b1_files = sorted(p.relative_to(team).as_posix() for p in (team / B1).rglob("*.sd"))
    assert conv["title"]["from"] == "named" and conv["title"]["file"] in b1_files
    assert asz_in_process("export", t, "--format", "text", "--root", str(team), "--out", str(copy)).returncode == 0
    _as_titled_then(copy, then, HIJACK)
    p = asz_in_process("verify", "--export", str(copy), "--root", str(team))
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == "the copy checks against the root", p.stdout
    (line,) = [x for x in p.stdout.splitlines() if x.startswith(f"ok: {t}: its title is the label of ")]
    assert line.endswith(f"; that label's file was sent by bob@hostB (credential bob), the conversation by alice@hostA "
                         "(credential alice): under today's rule (a label titles another session's conversation only "
                         "when one sender sent both; docs/security.md, Who sent it) this root does not take it as the "
                         "title, so a copy made now is titled otherwise; this copy, made before that rule, still "
                         "verifies as made"), line
