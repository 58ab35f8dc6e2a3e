"""A --project or --model filter cannot judge a conversation that does not verify (trial 25b F3): what its failed
files said of its project and models is held back, so every reader keeps it under such a filter and says so, never
drops it silently (docs/reading.md, "A filter cannot judge what does not verify"; ``listing.blind_to``).

Real input: the corpus collected by the real ``asz collect --once``, then one reply of session 55604662's landed
transcript changed in place to a text of the same length (the source's ``try running the server``), as
test_held_back_wording.py does, the file written anew (a new inode, as the trial's tamper); for ``asz secrets`` the claude-reliability transcript with an Anthropic key planted in
its prompt, collected, and a byte of its landed transcript changed. The projects and models are read from the source
transcripts (``cwd``, ``message.model``), never from asz's output."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from reading_helpers import asz, main_transcripts, planted_root, source_lines

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
#: The part of 55604662's project (/home/kim/projects/spotter, its source's cwd) no other conversation's holds.
PART = "kim/projects/spotter"
KEPT = "! kept though --project cannot judge it: it does not verify, so its project is held back"


def _sources(corpus_source: Path) -> dict[str, set]:
    """session id -> the ``cwd`` values of its main transcript, read from the source lines."""
    return {sid: {d["cwd"] for d in source_lines(path) if isinstance(d.get("cwd"), str)}
            for sid, path in main_transcripts(corpus_source).items()}


def rewrite(path: Path, old: bytes, new: bytes) -> None:
    """``old`` (found once) changed to ``new`` (as long) in landed file ``path``, written as a new file put in its
    place (a new inode, as ``sed -i`` or an editor saving writes it; trial 25b's tamper1): the search index reads the
    conversation again and finds the file does not verify."""
    data = path.read_bytes()
    assert data.count(old) == 1 and len(old) == len(new)
    mode = path.stat().st_mode & 0o7777
    tmp = path.with_name(path.name + ".new")
    tmp.write_bytes(data.replace(old, new))
    tmp.chmod(mode)
    tmp.replace(path)


@pytest.fixture(scope="module")
def tampered(corpus_copy, corpus_source) -> Path:
    root = corpus_copy()
    (path,) = sorted((root / SID / "streams" / "main").glob("transcript-*.sd"))
    rewrite(path, b"try running the server", b"try smashed the server")
    return root


def test_the_source_gives_55604662_alone_that_project(corpus_source):
    src = _sources(corpus_source)
    assert [s for s, cwds in src.items() if any(PART in c for c in cwds)] == [SID]


def test_ls_lists_it_under_a_project_it_cannot_judge_and_says_why(tampered, corpus_source):
    p = asz("ls", "--root", str(tampered), "--project", PART)
    assert p.returncode == 0, p.stderr  # listed (it was "1 of 11" without it: nothing listed and no word, exit 1 then)
    rows = [ln for ln in p.stdout.splitlines() if ln.startswith(SID[:8])]
    assert len(rows) == 1 and re.split(r"\s{2,}", rows[0])[-1] == "mismatch", p.stdout
    assert f"{KEPT} (listed, never left out silently; asz verify names the problems): {SID[:8]} mismatch" in p.stdout
    # another project: the filter cannot judge it either, so it is kept beside that project's conversations
    src = _sources(corpus_source)
    deep = sorted(s for s, cwds in src.items() if any("deep-manifest" in c for c in cwds))
    got = json.loads(asz("ls", "--root", str(tampered), "--project", "deep-manifest", "--json").stdout)
    assert sorted(r["id"] for r in got) == sorted(deep + [SID])
    assert next(r for r in got if r["id"] == SID)["project"] in ("", None)


def test_ls_model_filter_keeps_it_and_says_so_on_stderr_with_json(tampered, corpus_source):
    model = "gpt-4o"  # no source file names it anywhere: a verified copy of every conversation is left out
    assert not [p for p in corpus_source.rglob("*.jsonl") if model.encode() in p.read_bytes()]
    p = asz("ls", "--root", str(tampered), "--model", model, "--json")
    assert p.returncode == 0, p.stderr
    assert [r["id"] for r in json.loads(p.stdout)] == [SID]
    assert (f"asz ls: ! kept though --model cannot judge it: it does not verify, so its models are held back (listed, "
            f"never left out silently; asz verify names the problems): {SID[:8]} mismatch") in p.stderr


def test_a_verified_copy_is_judged_by_its_project(corpus_copy):
    """Untouched, 55604662 is judged: another project or a model it has not leaves it out and no line is printed."""
    root = corpus_copy()
    p = asz("ls", "--root", str(root), "--project", "deep-manifest")
    assert p.returncode == 0 and SID[:8] not in p.stdout and "cannot judge" not in p.stdout + p.stderr
    p = asz("ls", "--root", str(root), "--model", "gpt-4o", check=False)
    assert p.returncode == 1 and "no conversation matched --model gpt-4o" in p.stderr


def test_export_project_writes_it_warns_and_exits_1(tampered, tmp_path):
    out = tmp_path / "audit.jsonl"
    p = asz("export", "--root", str(tampered), "--project", PART, "--audit", "--out", str(out), check=False)
    assert p.returncode == 1, p.stdout + p.stderr  # as every conversation that does not verify (was: 0 and nothing)
    assert (f"asz export: warning: {KEPT} (exported, never left out silently; asz verify names the problems): "
            f"{SID[:8]} mismatch") in p.stderr
    assert f"asz export: warning: {SID} does not verify" in p.stderr
    heads = [json.loads(ln) for ln in out.read_text().splitlines() if '"kind":"conversation"' in ln.replace(" ", "")]
    assert [h["conversation"] for h in heads] == [SID]


def test_usage_project_holds_its_calls_back_and_names_it(tampered):
    p = asz("usage", "--root", str(tampered), "--project", PART, "--json", check=False)
    assert p.returncode == 1, p.stdout + p.stderr  # a conversation that does not verify: exit 1, as without --project
    rows = json.loads(p.stdout)
    held = {h["conversation"] for r in rows for h in r.get("held_back") or ()}
    assert held == {SID} and all(r["calls"] == 0 for r in rows)
    assert f"conversation {SID} does not verify (mismatch)" in p.stderr


def _calls_by_day(corpus_source: Path) -> dict[str, int]:
    """UTC day -> model calls of 55604662 (distinct ``message.id`` of its assistant lines with usage), from the source."""
    days: dict[str, set] = {}
    for d in source_lines(main_transcripts(corpus_source)[SID]):
        if d.get("type") == "assistant" and (d.get("message") or {}).get("usage"):
            days.setdefault(d["timestamp"][:10], set()).add(d["message"]["id"])
    return {day: len(ids) for day, ids in days.items()}


def test_usage_project_rows_show_no_figure_the_held_line_contradicts(tampered, corpus_source):
    """Recheck 25 N3: the held-back day read CALLS 0 (and TOTAL ``not recorded``) while the line under it named the
    calls; now such a row reads ``-`` and ``held back``, and ``asz ls``'s line says why the filter kept it."""
    days = _calls_by_day(corpus_source)
    p = asz("usage", "--root", str(tampered), "--project", PART, "--tz", "UTC", check=False)
    assert p.returncode == 1, p.stdout + p.stderr
    rows = {ln.split()[0]: re.split(r"\s{2,}", ln.strip()) for ln in p.stdout.splitlines()[1:] if ln[:4].isdigit()}
    assert sorted(rows) == sorted(days)
    for cells in rows.values():  # DATE !, MODELS, CALLS, INPUT, OUTPUT, CACHE WRITE, CACHE READ, TOTAL, COST
        assert cells[1:] == ["held back", "-", "-", "-", "-", "-", "held back", "-"], cells
    assert (f"held back, in no figure above (they do not verify; asz verify names the problems): {SID[:8]} (mismatch, "
            f"{sum(days.values())} call(s): ") in p.stdout
    assert (f"{KEPT} (counted as held back, never left out silently; asz verify names the problems): {SID[:8]} "
            "mismatch") in p.stdout.splitlines()
    j = asz("usage", "--root", str(tampered), "--project", PART, "--json", check=False)
    assert f"{KEPT} (counted as held back" in j.stderr and KEPT not in j.stdout


def test_search_project_keeps_its_hits_held_back_and_named(tampered):
    p = asz("search", "--root", str(tampered), "--project", PART, "server", check=False)
    # kept (was 1: "no conversation matched --project"); its hits held back: a problem found, exit 1 (trial 26b F4)
    assert p.returncode == 1 and "no conversation matched" not in p.stderr, p.stdout + p.stderr
    assert re.search(r"^0 of \d+ hit\(s\) \(\d+ held back: the landed files they were indexed from do not verify",
                     p.stdout, re.M), p.stdout
    assert re.search(rf"^asz search: warning: hits in {SID}/streams/main/transcript-\S+\.sd left out: the landed file "
                     "does not verify", p.stderr, re.M), p.stderr
    said = f"{KEPT} (searched, hits of its files that do not verify held back, never left out silently; asz verify " \
           f"names the problems): {SID[:8]} unverified"  # asz ls's words (recheck 25 N3)
    assert said in p.stdout.splitlines() and f"asz search: note: {said}" in p.stderr.splitlines()
    # by conversation: the same line (small26: --conversations said nothing of it), from the same function
    c = asz("search", "--conversations", "--root", str(tampered), "--project", PART, "server", check=False)
    assert c.returncode == 1 and re.search(rf"^asz search: warning: hits in {SID}/streams/main/transcript-\S+\.sd left "
                                           "out: the landed file does not verify", c.stderr, re.M), c.stdout + c.stderr
    assert said in c.stdout.splitlines() and f"asz search: note: {said}" in c.stderr.splitlines()
    j = asz("search", "--conversations", "--json", "--root", str(tampered), "--project", PART, "server", check=False)
    assert f"asz search: note: {said}" in j.stderr.splitlines() and said not in j.stdout


RELIABILITY = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
KEY = "sk-ant-api03-" + "Fake0Key1For2Asz3Filter4Tests5Only6Not7Real8Abc9Def0Ghi1Jkl2Mno3Pqr4Stu5Vwx6Yz7Ab8Cd9Ef0Gh1Ij2KlAA"


def _plant(lines: list[dict]) -> None:
    lines[1]["message"]["content"] = f"{lines[1]['message']['content']} Use ANTHROPIC_API_KEY={KEY} please."


def test_secrets_project_lists_its_credentials_and_says_why(tmp_path_factory, corpus_dir):
    root = planted_root(corpus_dir, tmp_path_factory.mktemp("unverified-secrets"), RELIABILITY, _plant)
    (cwd,) = {d["cwd"] for d in source_lines(corpus_dir / RELIABILITY) if isinstance(d.get("cwd"), str)}
    sid = Path(RELIABILITY).stem
    whole = asz("secrets", "--root", str(root), "--project", cwd, "--json", check=False)
    assert whole.returncode == 1 and [f["conversation"] for f in json.loads(whole.stdout)] == [sid]
    (path,) = sorted((root / sid / "streams" / "main").glob("transcript-*.sd"))
    rewrite(path, b" please.", b" pleasE.")
    p = asz("secrets", "--root", str(root), "--project", cwd, "--json", check=False)
    assert p.returncode == 1, p.stdout + p.stderr  # found (was: none found, exit 0)
    found = json.loads(p.stdout)
    assert [(f["conversation"], f["secret"], f["masked"]) for f in found] == [(sid, "anthropic-api-key", KEY[:4] + "…" + KEY[-4:])]
    assert (f"asz secrets: note: {KEPT} (listed, never left out silently; asz verify names the problems): "
            f"{sid[:8]} unverified") in p.stderr
