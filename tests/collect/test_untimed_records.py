"""Trial 30a F8: a record whose ``timestamp`` does not read (``"yesterday"``, a number) landed with no word, and
``asz conversation`` then printed a talk of it as ``from 1970-01-01 00:00 UTC``. Now it lands (nothing lost: a string
as written, a number as its JSON text, in the record's ``time``) with one ``warning:`` per source naming the file,
each line, the field (``time``, Claude Code's ``timestamp``) and the value; ``asz verify`` passes the root, and
``asz conversation`` names no time it does not have (seed 000, Times: a value that is not an RFC 3339 time means the
record has no time). Session 32 (fix32c): every reader says such a record once, in the same words, naming its landed
file and line: ``asz verify`` (a warning, exit 0, ``untimed_records``), the document's ``summary.problems`` (so
``asz conversation``, ``asz ls``'s ``!`` and the page), and each export form's step line (md, brief, html, prose,
the audit form).

Real input: the corpus's smallest Claude Code session (de3b8b19) with two of its lines' timestamps replaced, collected
by the real ``asz collect --once``; the lines and values are counted here from that source file."""

from __future__ import annotations

import json

from collect_helpers import asz, stream_files

SESSION = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
SAID = "give a time that does not read as an RFC 3339 time"


def _untimed_copy(corpus_dir, tmp_path):
    """The session's transcript with a typed prompt's timestamp made "yesterday" and the next reply's a number, under
    tmp_path/projects: (that file, its source lines, the prompt's and the reply's 0-based indexes)."""
    src = next((corpus_dir / "claude-code" / "projects").rglob(f"{SESSION}.jsonl"))
    projects = tmp_path / "projects" / src.parent.name
    projects.mkdir(parents=True)
    lines = src.read_text(encoding="utf-8").splitlines()
    objs = [json.loads(x) for x in lines]
    user = next(i for i, o in enumerate(objs) if o.get("type") == "user" and isinstance(o.get("message", {}).get("content"), str))
    reply = next(i for i, o in enumerate(objs) if o.get("type") == "assistant" and i > user)
    objs[user]["timestamp"], objs[reply]["timestamp"] = "yesterday", 1767261700000
    (projects / src.name).write_text("".join(json.dumps(o) + "\n" for o in objs), encoding="utf-8")
    return projects / src.name, objs, user, reply


def test_a_time_that_does_not_read_lands_said_and_is_never_invented(corpus_dir, tmp_path):
    path, objs, user, reply = _untimed_copy(corpus_dir, tmp_path)
    root = tmp_path / "root"
    p = asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert p.returncode == 0, p.stdout + p.stderr
    warned = [ln for ln in p.stderr.splitlines() if "does not read as an RFC 3339 time" in ln]
    assert len(warned) == 1, p.stderr
    assert warned[0].startswith(f"warning: {path}: 2 record(s) give a time that does not read as an "
                                "RFC 3339 time, field time (timestamp) ("
                                f"line {user + 1}: 'yesterday'; line {reply + 1}: '1767261700000'): ")
    landed = {}
    for f in stream_files(root, SESSION):
        for ln in f.read_text(encoding="utf-8").splitlines():
            d = json.loads(ln)
            if "ord" in d:
                landed[d["ord"]] = d
    assert len(landed) == len(objs)  # every source line landed: nothing lost
    assert landed[user + 1]["time"] == "yesterday" and landed[reply + 1]["time"] == "1767261700000"
    assert all(landed[i + 1].get("time") == o.get("timestamp") for i, o in enumerate(objs) if i not in (user, reply))
    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr
    c = asz("conversation", SESSION, "--root", str(root))
    assert c.returncode == 0, c.stderr
    assert "1970" not in c.stdout, c.stdout
    again = asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert "RFC 3339" not in again.stderr  # said once, when it landed


def test_every_reader_says_such_a_record_once_naming_its_landed_file_and_line(corpus_dir, tmp_path):
    path, objs, user, reply = _untimed_copy(corpus_dir, tmp_path)
    root = tmp_path / "root"
    assert asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root)).returncode == 0
    # where each source line landed, found from the landed files themselves: (file under the root, line in it)
    where = {}
    for f in stream_files(root, SESSION):
        for n, ln in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            d = json.loads(ln)
            if "ord" in d:
                where[d["ord"]] = (f.relative_to(root).as_posix(), n)
    (file_u, line_u), (file_r, line_r) = where[user + 1], where[reply + 1]
    assert file_u == file_r  # one landed file holds both (the session is small)

    v = asz("verify", "--root", str(root))
    assert v.returncode == 0, v.stdout + v.stderr  # no damage: the bytes are whole
    said = [ln for ln in v.stdout.splitlines() if ln.startswith("warning:") and SAID in ln]
    assert said == [f"warning: {root / file_u}:{line_u}: time does not read [time]: 2 record(s) {SAID}, field time "
                    f"(line {line_u}: 'yesterday'; line {line_r}: '1767261700000'): each landed with the value as "
                    "written (a value that is no string as its JSON text) and reads as having no time: no reader "
                    "places it by a time it does not have"], v.stdout
    j = json.loads(asz("verify", "--root", str(root), "--json").stdout)
    assert j["ok"] is True and j["untimed_records"] == 2
    assert [(w["file"], w["line"], w["problem"]) for w in j["warnings"]] == [(str(root / file_u), line_u, "time does not read")]
    assert j["warnings"][0]["detail"] == said[0].split("[time]: ", 1)[1]

    doc = json.loads(asz("conversation", SESSION, "--root", str(root), "--json").stdout)
    lines = [x for x in doc["summary"]["problems"] if SAID in x]
    assert lines == [f"time does not read: 2 record(s) {SAID}, field time ({file_u} line {line_u}: 'yesterday'; "
                     f"line {line_r}: '1767261700000'): each landed with the value as written (a value that is no "
                     "string as its JSON text) and reads as having no time: no reader places it by a time it does not "
                     "have"]
    assert doc["summary"]["state"] == "verified"
    text = asz("conversation", SESSION, "--root", str(root)).stdout
    assert text.count(SAID) == 1 and "1970" not in text

    slot_u = f"time does not read ('yesterday', {file_u} line {line_u})"
    slot_r = f"time does not read ('1767261700000', {file_r} line {line_r})"
    md = asz("export", SESSION, "--root", str(root), "--format", "md").stdout
    assert md.count(slot_u) == 1 and md.count(slot_r) == 1 and md.count(SAID) == 1 and "1970" not in md
    assert f"**Person** · {slot_u} · " in md and f"**Tool Write** · {slot_r} · " in md
    brief = asz("export", SESSION, "--root", str(root), "--format", "md", "--brief").stdout
    assert brief.count(slot_u) == 1 and "1970" not in brief
    html = asz("export", SESSION, "--root", str(root), "--format", "html").stdout
    assert html.count(slot_u.replace("'", "&#x27;")) == 1 and html.count(slot_r.replace("'", "&#x27;")) == 1
    for extra in ((), ("--audit",)):
        out = asz("export", SESSION, "--root", str(root), "--format", "prose", *extra).stdout
        rows = [json.loads(x) for x in out.splitlines()]
        unread = {r["row"]: r["time_unread"] for r in rows if "time_unread" in r}
        assert all(r["ts"] == objs[r["row"] - 1].get("timestamp") or r["row"] in unread for r in rows if "row" in r)
        assert unread.get(line_u - 1) == slot_u  # the prompt: a turn in both forms
        if extra:
            assert unread.get(line_r - 1) == slot_r  # the Write call: a line of the audit form only


def test_usage_counts_a_call_whose_time_does_not_read_in_every_total_and_says_it(corpus_dir, tmp_path):
    """``asz usage`` (daily, blocks, --json): the call whose reply line's timestamp was made a number is counted in
    every total (the tokens and calls counted here from the source lines: one call per message id, its usage that
    line's), placed as a call with no time of its own (daily by the conversation's recorded range, blocks in the
    ``(no time)`` row), never in a 1970 row, and said on stderr with the problems line naming the landed line."""
    path, objs, user, reply = _untimed_copy(corpus_dir, tmp_path)
    root = tmp_path / "root"
    assert asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root)).returncode == 0
    calls: dict[str, dict] = {}
    for o in objs:
        m = o.get("message") or {}
        if o.get("type") == "assistant" and m.get("id") and isinstance(m.get("usage"), dict):
            calls[m["id"]] = m["usage"]
    keys = {"in": "input_tokens", "out": "output_tokens", "cache_read": "cache_read_input_tokens",
            "cache_write": "cache_creation_input_tokens"}
    want = {k: sum(u.get(v, 0) for u in calls.values()) for k, v in keys.items()}
    untimed_call = objs[reply]["message"]["usage"]
    for view in ("daily", "blocks", "session"):
        p = asz("usage", view, "--root", str(root), "--json")
        assert p.returncode == 0, p.stderr
        rows = json.loads(p.stdout)
        assert {k: sum(r["usage"][k] for r in rows) for k in want} == want, (view, rows)
        assert sum(r["calls"] for r in rows) == len(calls) and "1970" not in p.stdout
        if view == "blocks":
            (alone,) = [r for r in rows if r["block"] == "(no time)"]
            assert {k: alone["usage"][k] for k in keys} == {k: untimed_call[v] for k, v in keys.items()}
        said = [ln for ln in p.stderr.splitlines() if "time does not read" in ln]
        assert len(said) == 1 and "asz usage counts their calls in every total" in said[0], p.stderr
        assert f"line {user + 2}: 'yesterday'" in said[0]  # the landed line: the header is line 1
    text = asz("usage", "blocks", "--root", str(root))
    (row,) = [ln for ln in text.stdout.splitlines() if ln.startswith("(no time) ")]
    assert f"{untimed_call['cache_read_input_tokens']:,}" in row and "1970" not in text.stdout


def test_an_index_an_older_asz_wrote_is_read_again_not_taken_as_timed(corpus_dir, tmp_path):
    """An index an asz before session 32 began has lines without the ``untimed`` key and a state without
    ``untimed_marked`` (fix33c item 6: verify then said nothing of such records until the index was rebuilt). Made
    here from the real index by taking out exactly what that asz did not write; ``asz verify`` still finds the two
    records (the same warning, ``untimed_records`` 2), reading the lines' records again; a new index says
    ``untimed_marked 1`` and a parse that appends to the old one does not claim it."""
    path, objs, user, reply = _untimed_copy(corpus_dir, tmp_path)
    root = tmp_path / "root"
    assert asz("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root)).returncode == 0
    new = json.loads(asz("verify", "--root", str(root), "--json").stdout)
    assert new["untimed_records"] == 2
    idx = root / SESSION / "index"
    state = (idx / "index.state").read_text(encoding="utf-8").splitlines()
    assert dict(ln.split(None, 1) for ln in state)["untimed_marked"] == "1"
    lines = [json.loads(x) for x in (idx / "entries.jsonl").read_bytes().splitlines()]
    assert sum(len(x.get("untimed", [])) for x in lines) == 2
    old = b"".join(json.dumps({k: v for k, v in x.items() if k != "untimed"}, separators=(",", ":")).encode() + b"\n"
                   for x in lines)
    (idx / "entries.jsonl").write_bytes(old)
    (idx / "index.state").write_text("".join(f"{ln}\n" for ln in state if not ln.startswith(("untimed_marked", "entries_bytes")))
                                     + f"entries_bytes {len(old)}\n", encoding="utf-8")
    assert b'"untimed' not in (idx / "entries.jsonl").read_bytes()
    j = json.loads(asz("verify", "--root", str(root), "--json").stdout)
    assert j["ok"] is True and j["untimed_records"] == 2, j
    assert [(w["file"], w["line"], w["detail"]) for w in j["warnings"]] == \
        [(w["file"], w["line"], w["detail"]) for w in new["warnings"]]
    assert asz("parse", "--root", str(root)).returncode == 0  # nothing new: the old index stays as it is
    assert "untimed_marked" not in dict(ln.split(None, 1) for ln in (idx / "index.state").read_text(encoding="utf-8").splitlines())
