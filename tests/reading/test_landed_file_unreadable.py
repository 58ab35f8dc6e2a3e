"""A landed file that cannot be read (mode 000, an I/O error) is said by every reader and costs no other conversation
(trial 26a, F1: ``asz ls``, ``asz conversation`` and the page's document crashed with a PermissionError traceback, so
one unreadable file of 208 conversations stopped the whole list).

Real input: two corpus sessions (de3b8b19 and 55604662) collected by the real ``asz collect --once``; then the one
transcript file of 55604662 made unreadable (mode 000). As root a mode is no bar, so the readers then run in a
subprocess without the capabilities that override it (``setpriv``); where neither works the test skips, saying why.
The truth for the figures left is de3b8b19's usage summed straight from its source transcript.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from reading_helpers import REPO, collected_root, source_lines

PROJECT = "-home-user-claude-reliability"
KEPT = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
SHUT = "55604662-cf2a-4331-851a-ec234028f8ca"
PROJECTS = {KEPT: PROJECT, SHUT: "-home-user-spotter"}
CAPS = "-dac_override,-dac_read_search,-fowner"


def _prefix() -> list[str]:
    """What runs a reader so that file modes bind it, or a skip."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a mode 000 file stays readable, so the case cannot be made")
    return ["setpriv", "--bounding-set", CAPS, "--inh-caps", CAPS, "--"]


def _asz(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*_prefix(), sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True,
                          text=True, timeout=300, cwd=REPO, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})


@pytest.fixture(scope="module")
def root(corpus_source, tmp_path_factory) -> Path:
    r = collected_root(corpus_source, tmp_path_factory.mktemp("landed_unreadable"), PROJECTS)
    [shut] = sorted((r / SHUT / "streams" / "main").glob("transcript-*.sd"))
    shut.chmod(0)
    yield r
    shut.chmod(0o444)


def _kept_truth(corpus_source: Path) -> tuple[int, int]:
    last: dict[str, dict] = {}
    for d in source_lines(corpus_source / PROJECT / f"{KEPT}.jsonl"):
        m = d.get("message") if isinstance(d.get("message"), dict) else {}
        if isinstance(m.get("usage"), dict) and m.get("id"):
            last[m["id"]] = m["usage"]
    tokens = sum(u.get(k, 0) for u in last.values() for k in
                 ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
    return len(last), tokens


def test_ls_lists_every_conversation_and_names_the_file(root, corpus_source):
    p = _asz("ls", "--root", str(root), "--json")
    assert "Traceback" not in p.stderr and p.returncode == 0, p.stderr
    rows = {r["id"]: r for r in json.loads(p.stdout)}
    assert set(rows) == {KEPT, SHUT}
    calls, tokens = _kept_truth(corpus_source)
    kept = rows[KEPT]
    assert kept["state"] == "verified" and kept["llm_calls"] == calls
    assert sum(v for k, v in kept["usage"].items() if k in ("in", "out", "cache_read", "cache_write")) == tokens
    shut = rows[SHUT]
    assert shut["state"] == "mismatch" and shut["usage"] is None and shut["cost"] is None
    assert any("cannot be read: Permission denied" in x and "/streams/main/transcript-" in x for x in shut["problems"])
    table = _asz("ls", "--root", str(root))
    assert "Traceback" not in table.stderr and table.returncode == 0
    assert any(ln.startswith(SHUT[:8]) for ln in table.stdout.splitlines())


def test_conversation_names_the_unreadable_file(root):
    p = _asz("conversation", SHUT[:8], "--root", str(root))
    assert "Traceback" not in p.stderr, p.stderr
    assert f"problem: landed file {SHUT}/streams/main/transcript-" in p.stdout
    assert "cannot be read: Permission denied" in p.stdout and "state mismatch" in p.stdout
    doc = json.loads(_asz("conversation", SHUT[:8], "--root", str(root), "--json").stdout)
    [row] = [f for f in doc["files"] if f["kind"] == "" and f["seq"] == 1]
    assert row["problem"] == "cannot be read: Permission denied" and row["lines"] == 0 and row["digest"] == ""


def test_export_says_it_could_not_read_not_write(root, tmp_path):
    out = tmp_path / "x.md"
    p = _asz("export", SHUT[:8], "--root", str(root), "--out", str(out))
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "cannot write" not in p.stderr and "cannot be read: Permission denied" in p.stderr


@pytest.mark.slow  # collect, prune and two readers in subprocesses: 10.8 s at load 16
def test_a_skeleton_that_cannot_be_read_is_said_too(corpus_source, tmp_path):
    """A skeleton (``.sk``, what ``asz prune`` leaves of a landed file) of mode 000 is said as a plain file is: it was
    read the full way outside the guard, so ``asz ls`` and ``asz conversation`` still ended in a traceback."""
    r = collected_root(corpus_source, tmp_path, {KEPT: PROJECT})
    (tmp_path / "asz.yaml").write_text('storage: {retention: {after: "0", require_accepted: false}}\n')
    assert _asz("prune", "--root", str(r), "--config", str(tmp_path / "asz.yaml")).returncode == 0
    [sk] = sorted((r / KEPT / "streams" / "main").glob("transcript-*.sk"))
    sk.chmod(0)
    try:
        p = _asz("ls", "--root", str(r), "--json")
        c = _asz("conversation", KEPT[:8], "--root", str(r))
        doc = json.loads(_asz("conversation", KEPT[:8], "--root", str(r), "--json").stdout)
    finally:
        sk.chmod(0o444)
    assert "Traceback" not in p.stderr and p.returncode == 0, p.stderr
    [row] = json.loads(p.stdout)
    rel = sk.relative_to(r).as_posix()
    said = f"landed file {rel} cannot be read: Permission denied"
    assert row["id"] == KEPT and row["state"] == "mismatch" and said in row["problems"]
    assert "Traceback" not in c.stderr and f"problem: {said}" in c.stdout.splitlines()
    # the removed file's size is in the skeleton's header, which could not be read: unknown, said with why, never 0
    # (review A 26: it said "1 of 1 landed file(s) (0 bytes)")
    assert doc["summary"]["removed"]["size_unknown"] == [{"file": rel, "why": "cannot be read: Permission denied"}]
    [sk_row] = [f for f in doc["files"] if f["file"] == rel]
    assert sk_row["bytes"] is None and sk_row["lines"] == 0  # not read: no line counted (it said 2, header and end)
    [line] = [ln for ln in c.stdout.splitlines() if ln.startswith("removed by retention")]
    assert f"1 of 1 landed file(s) (size unknown: skeleton {rel} cannot be read: Permission denied) are skeletons" in line
    assert "0 bytes" not in line
