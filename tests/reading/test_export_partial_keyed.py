"""A stopped folder export's partial manifest is no offline oracle (close37 "Manifests"; trial 37a F1 rest).

``DIR/export.partial.jsonl`` keeps, per copy whole in the folder, the fingerprints of the credentials its making
masked. They were the unkeyed first 12 hex digits of each credential's SHA-256 until the export finished, so a
folder left by Ctrl-C let anyone test guesses of a masked password. They are now keyed as the copies' manifests key
them (HMAC-SHA256 under ``_export/mask.key``), the key named; the export run again keeps such a copy and counts its
credential once with the same credential met anew.

Real input: two corpus transcripts (spotter, personal-site-next) with one named password planted in a prompt of each;
a real ``asz export --out DIR/`` that stops itself at its second copy (``ASZ_TEST_EXPORT_STOP``) and gets a real
SIGINT there."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cli_helpers import asz_in_process
from reading_helpers import REPO, planted_root, stopped_itself

PW = "hunter2-Partial38a-Pa55"
SPOTTER = "claude-code/projects/-home-user-spotter/55604662-cf2a-4331-851a-ec234028f8ca.jsonl"
SITE = "claude-code/projects/-Users-alex-workspace-personal-site-next/b25638d7-b104-4f06-a797-70ac33d069ed.jsonl"
JOURNAL = "export.partial.jsonl"
COUNTED = re.compile(r"masked (\d+) place\(s\) of (\d+) credential\(s\)")


def _spotter(lines: list[dict]) -> None:
    lines[3]["message"]["content"] = f"mix phx.server fails; db password: {PW}"


def _site(lines: list[dict]) -> None:
    lines[0]["message"]["content"] = f"the staging password: {PW} stopped working"


@pytest.fixture(scope="module")
def root(tmp_path_factory, corpus_dir) -> Path:
    return planted_root(corpus_dir, tmp_path_factory.mktemp("partial"), {SPOTTER: _spotter, SITE: _site})


def _args(root: Path, out: Path) -> list[str]:
    return ["export", "--since", "2000-01-01", "--format", "md", "--out", f"{out}/", "--root", str(root)]


def _stopped(root: Path, out: Path, point: str) -> subprocess.Popen:
    env = {**os.environ, "ASZ_TEST_EXPORT_STOP": point}
    p = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", *_args(root, out)], cwd=REPO, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return stopped_itself(p, point)


def test_a_stopped_exports_partial_manifest_holds_keyed_fingerprints_and_resumes_counting_once(root, tmp_path):
    if not Path("/proc/self/stat").exists():
        pytest.skip("needs /proc to see the export stop")
    whole = asz_in_process(*_args(root, tmp_path / "whole"))
    assert whole.returncode == 0, whole.stderr
    want = COUNTED.search(whole.stderr).groups()
    assert want[1] == "1" and int(want[0]) >= 2  # one password, in both conversations

    out = tmp_path / "out"
    p = _stopped(root, out, "copy:2")
    os.kill(p.pid, signal.SIGINT)
    os.kill(p.pid, signal.SIGCONT)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 130, err
    lines = [json.loads(x) for x in (out / JOURNAL).read_text().splitlines()]
    assert len(lines) == 1 and lines[0]["redacted"]  # the first copy, whole, with the password it masked

    key = bytes.fromhex((root / "_export" / "mask.key").read_text().strip())
    bare = hashlib.sha256(PW.encode()).hexdigest()[:12]
    keyed = hmac.new(key, b"credential\0" + bare.encode(), hashlib.sha256).hexdigest()[:12]
    assert set(lines[0]["redacted"]) == {keyed}
    assert lines[0]["mask_key"] == hashlib.sha256(b"asz mask key\0" + key).hexdigest()[:16]
    for f in out.iterdir():  # no unkeyed digest of the password in any file the stop left
        text = f.read_text(encoding="utf-8")
        assert PW not in text and bare not in text, f.name

    again = asz_in_process(*_args(root, out))
    assert again.returncode == 0, again.stderr
    assert "resumed an interrupted export: 1 written, 1 already there (1 kept as written" in again.stderr
    assert COUNTED.search(again.stderr).groups() == want  # the kept copy's keyed one and the new one: one credential
    assert not (out / JOURNAL).exists()


def test_a_partial_manifest_an_older_asz_wrote_is_keyed_when_read(root, tmp_path):
    """A line with the unkeyed fingerprints (no ``mask_key``) is keyed when the export next reads it: the run that
    resumes it rewrites the partial manifest keyed before it writes any copy."""
    out = tmp_path / "out"
    p = _stopped(root, out, "copy:2")
    os.kill(p.pid, signal.SIGINT)
    os.kill(p.pid, signal.SIGCONT)
    p.communicate(timeout=300)
    bare = hashlib.sha256(PW.encode()).hexdigest()[:12]
    line = json.loads((out / JOURNAL).read_text())
    keyed = line["redacted"]
    older = {k: v for k, v in line.items() if k != "mask_key"} | {"redacted": [bare] * len(keyed)}
    (out / JOURNAL).write_text(json.dumps(older) + "\n")
    p = _stopped(root, out, "part:2")  # the resumed run, stopped at the first file it writes after the partial manifest
    held = (out / JOURNAL).read_text()
    os.kill(p.pid, signal.SIGKILL)
    p.communicate(timeout=60)
    assert bare not in held and json.loads(held.splitlines()[0])["redacted"] == keyed
