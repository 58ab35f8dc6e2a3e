"""An export's title is checked as it was when the export was made (trial 43a F3).

Claude Code writes, on resuming a session, a ``summary`` record whose ``leafUuid`` names the last message of the
conversation it resumes, into another session's transcript: a later collect lands it, and the conversation is titled
anew though none of its own landed files or rounds changed. ``asz verify --export --root`` made the copy again with
the new title: exit 1, ``line 2 column 8: outside the masks … copy 'title: …', landed (masked) 'title: …'`` and each
mask after the title at another offset. Each manifest's conversation now says where its title came from (``title``:
``own``, or the landed file, digest, row and leaf of another session's record), and the copy is made again with it.

Real input: the corpus conversation 55604662 (15 source lines) with two written sessions of the same project, each
a ``summary`` naming its last message (the first one's holding an AWS key id, masked in every title). Expected values
read from the source and the landed files (the record's row and the file's SHA-256), never from asz's output."""

from __future__ import annotations

import hashlib
import json
import os
import shutil

from reading_helpers import asz, source_lines

from asz_core.export.settings import RetentionConfig
from asz_core.retention.prune import prune

PROJECT = "-home-user-spotter"
SID = "55604662-cf2a-4331-851a-ec234028f8ca"
C = "cccccccc-0000-4000-8000-000000000003"  # resumed first: its summary titles the conversation at the export
D = "dddddddd-0000-4000-8000-000000000004"  # resumed later: its summary is the root's title after the export
C_TITLE = "Resumed later: the server start with AKIAIOSFODNN7EXAMPLE set"
C_SHOWN = "Resumed later: the server start with AKIA…MPLE set"  # as every title masks the key id (docs/reading.md)
D_TITLE = "Resumed again: D's own summary"
NOW_NS = 1_767_225_600 * 10**9  # 2026-01-01T00:00:00Z: C's session (2025-12-01) is older, the others not
DAY = ("--since", "2026-02-10", "--until", "2026-02-10", "--tz", "UTC")
FORMS = {"c.txt": ["--format", "text", *DAY, "--in-range-only"], "c.md": ["--format", "md", "--redact"],
         "c.html": ["--format", "html"], "c.json": ["--format", "json"], "c.jsonl": ["--audit"],
         "day.md": ["--format", "md", *DAY]}


def _resumed(projects, sid: str, summary: str, leaf: str, ts: str) -> None:
    """A session of the project opening with a ``summary`` for ``leaf`` and one typed prompt, as Claude Code resumes."""
    lines = [{"type": "summary", "summary": summary, "leafUuid": leaf},
             {"type": "user", "uuid": f"{sid[:8]}-1", "parentUuid": None, "sessionId": sid, "timestamp": ts,
              "cwd": "/home/user/spotter", "version": "1.0.0", "isSidechain": False, "userType": "external",
              "message": {"role": "user", "content": "go on"}}]
    (projects / PROJECT / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))


def _collect(tmp_path):
    asz("collect", "--once", "--adapter", "claude-code-local", "--source", str(tmp_path / "projects"),
        "--root", str(tmp_path / "root"))


def _setup(corpus_source, tmp_path, first_summary: bool):
    """The corpus conversation collected (with C's summary when ``first_summary``); its source, root and leaf."""
    src = corpus_source / PROJECT / f"{SID}.jsonl"
    (tmp_path / "projects" / PROJECT).mkdir(parents=True)
    shutil.copy(src, tmp_path / "projects" / PROJECT / src.name)
    leaf = [d["uuid"] for d in source_lines(src) if d.get("type") in ("user", "assistant")][-1]  # its last message
    if first_summary:
        _resumed(tmp_path / "projects", C, C_TITLE, leaf, "2025-12-01T10:00:00Z")
    _collect(tmp_path)
    return tmp_path / "root", leaf


def _title(root, sid=SID) -> str:
    return next(r["title"] for r in json.loads(asz("ls", "--json", "--root", str(root)).stdout) if r["id"] == sid)


def _labelled(root, session: str, label: str):
    """(path under the root, SHA-256, row from 1) of the landed record of ``session`` whose label is ``label``,
    read from the landed file's lines."""
    for path in sorted((root / session).rglob("*.sd")):
        lines = path.read_bytes().split(b"\n")[1:]
        for row, line in enumerate(lines, 1):
            if line.startswith(b"{") and json.loads(line).get("label") == label:
                return path.relative_to(root).as_posix(), hashlib.sha256(path.read_bytes()).hexdigest(), row
    raise AssertionError(f"no landed record of {session} labelled {label!r}")


def _verify(root, copy, *more):
    return asz("verify", "--export", str(copy), "--root", str(root), *more, check=False)


def test_a_summary_landed_later_in_another_session_leaves_every_copy_checking(corpus_source, tmp_path):
    root, leaf = _setup(corpus_source, tmp_path, first_summary=True)
    assert _title(root) == C_SHOWN
    for name, args in FORMS.items():
        asz("export", *([] if name.startswith("day") else [SID]), *args, "--root", str(root), "--out", str(tmp_path / name))
    asz("export", "--since", "2026-02-10", "--format", "md", "--root", str(root), "--out", str(tmp_path / "folder") + "/")
    assert b"title: " + C_SHOWN.encode() in (tmp_path / "c.txt").read_bytes()
    assert (tmp_path / "c.md").read_bytes().startswith(b"# " + C_SHOWN.encode() + b"\n")
    file, digest, row = _labelled(root, C, C_TITLE)
    for name in FORMS:
        (conv,) = [c for c in json.loads((tmp_path / f"{name}.manifest.json").read_text())["conversations"] if c["conversation"] == SID]
        assert conv["title"] == {"from": "named", "file": file, "digest": digest, "row": row, "leaf": leaf}, name
    _resumed(tmp_path / "projects", D, D_TITLE, leaf, "2026-02-12T10:00:00Z")
    _collect(tmp_path)
    assert _title(root) == D_TITLE  # the last in (session, seq, row) order: the root titles it anew
    said = f"ok: {SID}: its title is the label of row {row} of landed file {file} (another session's record naming its message {leaf}"
    for name in FORMS:
        p = _verify(root, tmp_path / name)
        assert p.returncode == 0 and said in p.stdout, (name, p.stdout)
        assert p.stdout.splitlines()[-1] == "the copy checks against the root", (name, p.stdout)
    masks = json.loads((tmp_path / "c.md.manifest.json").read_text())["masks"]
    assert [m["line"] for m in masks] == [1] and masks[0]["shown"] == "AKIA…MPLE"  # the title's mask, where it stands
    p = _verify(root, tmp_path / "folder")
    assert p.returncode == 0 and p.stdout.splitlines()[-1] == "the folder checks against the root", p.stdout
    # a title edited by hand is named at its line and column, the manifest's record or not
    data = (tmp_path / "c.txt").read_bytes()
    line = data[:data.index(b"title: ")].count(b"\n") + 1
    (tmp_path / "c.txt").write_bytes(data.replace(b"Resumed later", b"Resumed lateR", 1))
    p = _verify(root, tmp_path / "c.txt")
    col = len("title: Resumed late") + 1
    assert p.returncode == 1 and f"c.txt: line {line} column {col}: outside the masks" in p.stdout, p.stdout
    # a manifest whose title names another record, or another file's digest: named, never taken for the title
    for key, value, at, why in (("row", row + 1, row + 1, f"its row {row + 1} holds no label written for the message {leaf}"),
                                ("digest", "0" * 64, row, f"its SHA-256 is {digest}, not the manifest's {'0' * 64}")):
        p = _verify(root, _retitled(tmp_path / "c.md", key, value))
        assert p.returncode == 1 and f"{SID}: its title came from the label of row {at} of landed file {file} (another " \
            f"session's record naming one of its messages, the manifest's title), which the root does not hold so: {why}" \
            in p.stdout, p.stdout
    # retention took C's session (its last activity before now_ns; the conversation's and D's after): the skeleton keeps
    # the landed file's digest and every record's label in its place
    assert prune(root, RetentionConfig(after=0.0, require_accepted=False), now_ns=NOW_NS).removed == [C]
    assert not (root / file).exists() and (root / file).with_suffix(".sk").is_file()
    p = _verify(root, tmp_path / "c.md")
    assert p.returncode == 0 and f"{said}, as at the export): removed by retention; its skeleton " in p.stdout, p.stdout
    p = _verify(root, _retitled(tmp_path / "c.md", "digest", "0" * 64))
    assert p.returncode == 1 and "removed by retention; its skeleton " in p.stdout and f"not the manifest's" in p.stdout, p.stdout


def _retitled(copy, key: str, value):
    """A copy of ``copy`` (and its manifest) whose manifest's conversation ``title`` has ``key`` set to ``value``."""
    body = json.loads(copy.with_name(copy.name + ".manifest.json").read_text())
    body["conversations"][0]["title"][key] = value
    other = copy.with_name(f"{key}-{copy.name}")
    other.write_bytes(copy.read_bytes())
    body["export"]["file"] = other.name
    other.with_name(other.name + ".manifest.json").write_text(json.dumps(body))
    return other


def test_a_title_of_its_own_records_stays_so_and_a_later_rename_is_as_of_the_round(corpus_source, tmp_path):
    """A conversation no other session titled at the export (``own``: its first prompt) keeps that title in the check
    when a summary names it later; a ``/rename`` (custom-title) in its own session is a later round, checked as of the
    manifest's (it was so before)."""
    root, leaf = _setup(corpus_source, tmp_path, first_summary=False)
    prompt = next(d["message"]["content"] for d in source_lines(corpus_source / PROJECT / f"{SID}.jsonl") if d.get("type") == "user")
    assert _title(root) == prompt
    for name in ("c.txt", "c.md"):
        asz("export", SID, *FORMS[name], "--root", str(root), "--out", str(tmp_path / name))
        assert json.loads((tmp_path / f"{name}.manifest.json").read_text())["conversations"][0]["title"] == {"from": "own"}
    _resumed(tmp_path / "projects", C, C_TITLE, leaf, "2026-02-11T10:00:00Z")
    _collect(tmp_path)
    assert _title(root) == C_SHOWN
    for name in ("c.txt", "c.md"):
        p = _verify(root, tmp_path / name)
        assert p.returncode == 0, (name, p.stdout)
    with (tmp_path / "projects" / PROJECT / f"{SID}.jsonl").open("a") as f:
        f.write(json.dumps({"type": "custom-title", "customTitle": "Renamed by hand", "sessionId": SID}) + "\n")
    _collect(tmp_path)
    assert _title(root) == "Renamed by hand"
    p = _verify(root, tmp_path / "c.md")
    assert p.returncode == 0 and "the root moved on since the export: round 1 → 2" in p.stdout, p.stdout


def test_a_manifest_from_before_says_what_it_can_prove(corpus_source, tmp_path):
    """A manifest with no ``title`` (an asz before session 43 wrote none; its copy's bytes are the same) is checked
    with the root's title now, then with the title its own records give, then with each other session's label naming
    it: the one that makes the copy again checks it, said with what it cannot prove; a title edited still fails."""
    root, leaf = _setup(corpus_source, tmp_path, first_summary=True)
    for name in ("c.txt", "c.md"):
        asz("export", SID, *FORMS[name], "--root", str(root), "--out", str(tmp_path / name))
        m = tmp_path / f"{name}.manifest.json"
        body = json.loads(m.read_text())
        del body["conversations"][0]["title"]
        m.write_text(json.dumps(body))
    _resumed(tmp_path / "projects", D, D_TITLE, leaf, "2026-02-12T10:00:00Z")
    _collect(tmp_path)
    file, _, row = _labelled(root, C, C_TITLE)
    for name in ("c.txt", "c.md"):
        p = _verify(root, tmp_path / name)
        assert p.returncode == 0, (name, p.stdout)
        assert (f"ok: {SID}: its manifest (an asz before session 43) does not say where its title came from" in p.stdout
                and f"with the label of row {row} of landed file {file}" in p.stdout
                and "not proved to be the one it had at the export" in p.stdout), p.stdout
    data = (tmp_path / "c.md").read_bytes()
    (tmp_path / "c.md").write_bytes(data.replace(b"Resumed later", b"Resumed lateR", 1))
    p = _verify(root, tmp_path / "c.md")
    col = len(os.path.commonprefix([f"# {C_SHOWN}".replace("later", "lateR"), f"# {D_TITLE}"])) + 1  # against the title now
    assert p.returncode == 1 and f"c.md: line 1 column {col}: outside the masks" in p.stdout, p.stdout
