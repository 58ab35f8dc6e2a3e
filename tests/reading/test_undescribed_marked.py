"""A transcript line the dialect could not read (a run of NUL bytes before it, what a power loss leaves) may have
been a model call no figure counts: ``asz ls`` marks the row ``!`` with a problem line, ``asz usage`` marks the
conversation's row and the total ``!`` with a line naming it and the count (trial 18, F-f: both said nothing).

Real data: a corpus transcript (../shared/corpus, skipped when absent) copied to tmp as it is and with 4,096 NUL
bytes before one assistant line whose call no other line holds; collected by the real ``asz collect --once``, the
commands run in process (tests/cli_helpers.py). Counts from the source: its calls are its assistant lines' distinct
message ids.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import asz_in_process, collect_transcript

SID = "b25638d7-b104-4f06-a797-70ac33d069ed"
PROJECT = "-Users-alex-workspace-personal-site-next"


def _collect(base: Path, data: bytes) -> Path:
    return collect_transcript(base, PROJECT, SID, data)


@pytest.fixture(scope="module")
def source(corpus_dir: Path) -> list[bytes]:
    f = corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl"
    if not f.is_file():
        pytest.skip(f"{f} is absent")
    return f.read_bytes().splitlines(keepends=True)


def _calls(lines: list[bytes]) -> dict[str, list[int]]:
    """message id -> indexes of the assistant lines carrying it."""
    out: dict[str, list[int]] = {}
    for i, line in enumerate(lines):
        d = json.loads(line)
        if d.get("type") == "assistant":
            out.setdefault(d["message"]["id"], []).append(i)
    return out


def test_a_line_behind_nuls_is_marked_in_ls_and_usage(source, tmp_path):
    calls = _calls(source)
    lone = next(ix[0] for ix in calls.values() if len(ix) == 1)  # an assistant line no other line's call holds
    broken = source[:lone] + [b"\0" * 4096 + source[lone]] + source[lone + 1:]
    root = _collect(tmp_path / "nul", b"".join(broken))
    ls = json.loads(asz_in_process("ls", "--json", "--root", str(root)).stdout)[0]
    assert (ls["state"], ls["llm_calls"]) == ("verified", len(calls) - 1)
    text = asz_in_process("ls", "--root", str(root)).stdout.splitlines()
    assert text[1].startswith(SID[:8]) and text[1].endswith("verified !")
    assert text[2] == (f"! problems in {SID[:8]} (1): undescribed records that could hold calls: 1 transcript record(s) "
                       f"the dialect could not read (kept whole as unknown parts), so no figure counts a call they may "
                       f"hold: 1/{lone + 1}; asz conversation {SID[:8]} names them")
    # the session's row is marked; a view whose rows are not conversations marks none, so its line says the records
    # are in no row and counts them (not what of them is not known: some name their model, trial 39b F6)
    rest = f" (each may have been a model call; asz conversation ID lists them under undescribed): {SID[:8]} (1 record(s))"
    for view, first, said in (
            ("session", f"{SID[:8]} ", "so in no figure above: transcript records the dialect could not read"),
            ("daily", "2025-09-29", "in no day's row and no total above: 1 transcript record(s) the dialect could not "
                                    "read"),
            ("model", "claude-", "in no model's row and no total above: 1 transcript record(s) the dialect could not "
                                 "read")):
        p = asz_in_process("usage", view, "--root", str(root), "--tz", "UTC")
        assert p.returncode == 0, p.stderr
        rows = p.stdout.splitlines()
        assert rows[1].startswith(first) and (" ! " in rows[1]) == (view == "session"), rows
        total = next(i for i, r in enumerate(rows) if r.startswith("total"))
        assert rows[total].startswith("total !")
        assert rows[total + 1] == f"! undescribed, {said}{rest}"
    got = json.loads(asz_in_process("usage", "--json", "--root", str(root), "--tz", "UTC").stdout)
    # a line behind NULs names no call: it may have been one (naming_calls 0)
    assert got[0]["undescribed"] == [{"conversation": SID, "records": 1, "naming_calls": 0}] and got[0]["calls"] == len(calls) - 1


def test_a_clean_copy_is_not_marked(source, tmp_path):
    root = _collect(tmp_path / "plain", b"".join(source))
    assert asz_in_process("ls", "--root", str(root)).stdout.splitlines()[1].endswith("verified")
    p = asz_in_process("usage", "--root", str(root), "--tz", "UTC")
    assert "undescribed" not in p.stdout and p.stdout.splitlines()[2].startswith("total  ")
    got = json.loads(asz_in_process("usage", "--json", "--root", str(root), "--tz", "UTC").stdout)
    assert "undescribed" not in got[0] and got[0]["calls"] == len(_calls(source))  # listed only when some, as unchained


def test_each_json_row_names_only_its_own_conversations(source, corpus_dir, tmp_path):
    """Trial 35a F8: every ``asz usage daily --json`` row carried the root's whole ``undescribed`` list (a row of
    2025-06-14 named a conversation active only on 2026-04-18). Now a row lists the conversations its calls are of;
    ``--total-once`` lists them all once. The other conversation: a clean corpus transcript of other days. A window of
    its days alone holds no ``!`` and no undescribed line (trial 39d F1: the damaged one, wholly outside, marked it)."""
    other = corpus_dir / "claude-code" / "projects" / "-Users-alex-workspace-claude-code-log-sample" / "326189cf-5676-4237-8cde-1ce80aae4a9f.jsonl"
    calls = _calls(source)
    lone = next(ix[0] for ix in calls.values() if len(ix) == 1)
    broken = source[:lone] + [b"\0" * 4096 + source[lone]] + source[lone + 1:]
    proj = tmp_path / "projects" / "-p"
    proj.mkdir(parents=True)
    (proj / other.name).write_bytes(other.read_bytes())
    root = collect_transcript(tmp_path, PROJECT, SID, b"".join(broken))
    days = {json.loads(ln)["timestamp"][:10] for ln in source if b'"timestamp"' in ln}
    theirs = {json.loads(ln)["timestamp"][:10] for ln in other.read_bytes().splitlines() if b'"timestamp"' in ln}
    assert days.isdisjoint(theirs)  # the premise: the two never share a day
    got = json.loads(asz_in_process("usage", "daily", "--json", "--root", str(root), "--tz", "UTC").stdout)
    mine = [r for r in got if r["date"] in days]
    assert mine and all(r["undescribed"] == [{"conversation": SID, "records": 1, "naming_calls": 0}] for r in mine)
    assert [r for r in got if r["date"] in theirs] and all("undescribed" not in r for r in got if r["date"] in theirs)
    once = json.loads(asz_in_process("usage", "daily", "--json", "--total-once", "--root", str(root), "--tz", "UTC").stdout)
    assert once["undescribed"] == [{"conversation": SID, "records": 1, "naming_calls": 0}]
    # Trial 39d F1: a window of the other conversation's days only marked its total ! and said the damaged one's
    # records (it lies wholly outside); a window of the damaged one's days still does
    assert max(days) < min(theirs) or min(days) > max(theirs)  # the premise: the window holds none of its days
    window = ("--since", min(theirs), "--until", max(theirs), "--tz", "UTC", "--root", str(root))
    p = asz_in_process("usage", "daily", *window)
    assert p.returncode == 0 and "undescribed" not in p.stdout + p.stderr, p.stdout
    total = next(r for r in p.stdout.splitlines() if r.startswith("total"))
    assert not total.startswith("total !") and "!" not in p.stdout, p.stdout
    got = json.loads(asz_in_process("usage", "daily", "--json", *window).stdout)
    assert sorted(r["date"] for r in got) == sorted(theirs) and all("undescribed" not in r for r in got)
    assert sum(r["calls"] for r in got) == len(_calls(other.read_bytes().splitlines()))  # counted from the source
    once = json.loads(asz_in_process("usage", "daily", "--json", "--total-once", *window).stdout)
    assert "undescribed" not in once and once["total"]["calls"] == len(_calls(other.read_bytes().splitlines()))
    p = asz_in_process("usage", "daily", "--since", min(days), "--until", max(days), "--tz", "UTC", "--root", str(root))
    rows = p.stdout.splitlines()
    assert next(r for r in rows if r.startswith("total")).startswith("total !")
    assert any(r.startswith("! undescribed, in no day's row") and f"{SID[:8]} (1 record(s))" in r for r in rows), rows


def test_empty_blank_and_null_lines_are_undescribed_but_could_hold_no_call(source, tmp_path):
    """Trial 41b F6: a line that is empty, blanks only or ``null`` lands as unknown (right) but was named among the
    undescribed records that could hold calls, and ``asz usage`` marked it ``!``. Such a line holds nothing: it stays
    listed as undescribed, saying why it holds no call, and only the line behind NULs is counted as one that could."""
    calls = _calls(source)
    lone = next(ix[0] for ix in calls.values() if len(ix) == 1)
    blanks = [b"\n", b"   \t \n", b"null\n", b"  null \n"]
    data = source[:lone] + [b"\0" * 4096 + source[lone]] + source[lone + 1:] + blanks
    root = _collect(tmp_path / "blanks", b"".join(data))
    held = [i + 1 for i, ln in enumerate(data) if ln.strip(b" \t\r\n") in (b"", b"null")]  # counted in the source
    assert len(held) == len(blanks)
    text = asz_in_process("ls", "--root", str(root)).stdout.splitlines()
    assert text[2] == (f"! problems in {SID[:8]} (1): undescribed records that could hold calls: 1 transcript record(s) "
                       f"the dialect could not read (kept whole as unknown parts), so no figure counts a call they may "
                       f"hold: 1/{lone + 1}; asz conversation {SID[:8]} names them")
    got = json.loads(asz_in_process("usage", "--json", "--root", str(root), "--tz", "UTC").stdout)
    assert got[0]["undescribed"] == [{"conversation": SID, "records": 1, "naming_calls": 0}]
    conv = asz_in_process("conversation", SID[:8], "--root", str(root)).stdout.splitlines()
    assert (f"undescribed {len(held) + 1} record part(s) the dialect could not describe (kept whole; --json lists them "
            f"under undescribed); {len(held)} of them a line that holds nothing (empty, blanks only, or null), which "
            "cannot hold a call: not among the records that could") in conv
    assert sum(ln.endswith("; it holds nothing, so no call)") for ln in conv) == len(held)
    clean = _collect(tmp_path / "only-blanks", b"".join(source + blanks))  # blanks alone: nothing marked !
    assert asz_in_process("ls", "--root", str(clean)).stdout.splitlines()[1].endswith("verified")
    p = asz_in_process("usage", "--root", str(clean), "--tz", "UTC")
    assert "undescribed" not in p.stdout and "!" not in p.stdout, p.stdout


def test_json_holding_no_object_could_hold_no_call_either(source, tmp_path):
    """Trial 49b F5: the lines ``"text"`` and ``12`` (and ``["x"]``, ``true``) were counted among the "transcript
    record(s) … could hold calls" though, like ``null``, they hold no object and so no call. From render 49 only a line
    that could hold one is counted (an array holding an object, a line that is not JSON): those are named, the others
    said for what they are in ``asz conversation`` and the json document's ``undescribed`` (``no_object``); and a
    render 48 copy's head is made again counting them as it did, so it still checks."""
    odd = [b'["x"]\n', b'"text"\n', b"12\n", b"true\n", b'[[1, "a"]]\n', b'[{"type": "assistant"}]\n',
           b'{"type": "assistant", "message": {"con\n']
    data = source + odd
    root = _collect(tmp_path / "odd", b"".join(data))
    could = [i + 1 for i, ln in enumerate(data) if ln.startswith((b"[{", b"{")) and i >= len(source)]  # counted in the source
    assert len(could) == 2
    text = asz_in_process("ls", "--root", str(root)).stdout.splitlines()
    assert text[2] == (f"! problems in {SID[:8]} (1): undescribed records that could hold calls: 2 transcript record(s) "
                       f"the dialect could not read (kept whole as unknown parts), so no figure counts a call they may "
                       f"hold: 1/{could[0]}, 1/{could[1]}; asz conversation {SID[:8]} names them")
    got = json.loads(asz_in_process("usage", "--json", "--root", str(root), "--tz", "UTC").stdout)
    assert got[0]["undescribed"] == [{"conversation": SID, "records": 2, "naming_calls": 0}]
    conv = asz_in_process("conversation", SID[:8], "--root", str(root)).stdout.splitlines()
    assert (f"undescribed {len(odd)} record part(s) the dialect could not describe (kept whole; --json lists them under "
            "undescribed); 5 of them JSON holding no object (a string, a number, true or false, an array of those), "
            "which cannot hold a call either") in conv
    said = [ln.rsplit("; ", 1)[1] for ln in conv if ln.endswith(", which holds no call)")]
    assert said == ["a JSON array holding no object, which holds no call)", "a JSON string, which holds no call)",
                    "a JSON number, which holds no call)", "true or false, which holds no call)",
                    "a JSON array holding no object, which holds no call)"]
    doc = json.loads(asz_in_process("export", SID[:8], "--format", "json", "--root", str(root)).stdout)
    assert [u.get("no_object") for u in doc["undescribed"]] == [
        "a JSON array holding no object", "a JSON string", "a JSON number", "true or false",
        "a JSON array holding no object", None, None]
    from asz_core.reading.export_render import drawing

    old = tmp_path / "old.md"
    with drawing(48):
        asz_in_process("export", SID[:8], "--out", str(old), "--root", str(root))
    assert "could hold calls: 7 transcript record(s)" in old.read_text()
    res = asz_in_process("verify", "--export", str(old), "--root", str(root))
    assert res.returncode == 0 and res.stdout.splitlines()[-1] == "the copy checks against the root", res.stdout
    only = _collect(tmp_path / "only-scalars", b"".join(source + odd[:5]))  # nothing that could: nothing marked !
    assert asz_in_process("ls", "--root", str(only)).stdout.splitlines()[1].endswith("verified")
