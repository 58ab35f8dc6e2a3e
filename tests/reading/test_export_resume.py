"""An interrupted folder export resumes (trial 31b F13, fix32d): Ctrl-C, SIGTERM or kill -9 at any point of
``asz export … --out DIR/``, then the same export again writes only what is not there yet or changed, says ``N
written, M already there``, and the folder is then byte for byte the one an export never stopped writes, and passes
``asz verify --export DIR --root``. Before its end the folder has no folder manifest, so it never passes as whole.

Real processes: the export runs as ``python -m asz_core.cli.main`` (forked from the pre-imported server of
tests/forked.py) and stops itself (SIGSTOP) at a chosen point
(``ASZ_TEST_EXPORT_STOP``, asz_core/reading/export_manifest.py: a ``.part`` written, a copy in place without its
manifest, a copy whole without its partial-manifest line, before the index, before the folder manifest); the test
then sends the real signal, so no sleep decides where it lands. Input: the corpus collected (11 conversations), and
for a conversation grown between the two runs two corpus sessions, one collected at 30 of its 46 lines."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import forked
from reading_helpers import GROWS, REPO, STAYS, asz, growing_pair, stopped_itself

JOURNAL = "export.partial.jsonl"
RESUMED = re.compile(r"resumed an interrupted export: (\d+) written, (\d+) already there \((\d+) kept as written: .*; "
                     r"(\d+) made again byte for byte\)")


def _export_args(root: Path, out: Path, fmt: str) -> list[str]:
    return ["export", "--since", "2000-01-01", "--format", fmt, *(["--whole"] if fmt == "json" else []),
            "--out", str(out), "--root", str(root)]


def _stopped_at(root: Path, out: Path, fmt: str, point: str) -> subprocess.Popen:
    """A real ``asz export`` that has stopped itself at ``point`` (SIGSTOP: its state T)."""
    env = {**os.environ, "ASZ_TEST_EXPORT_STOP": point}
    p = forked.Popen([sys.executable, "-m", "asz_core.cli.main", *_export_args(root, out, fmt)], cwd=REPO, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return stopped_itself(p, point)


def _files(d: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in sorted(d.iterdir())}


def _kept(out: Path) -> list[dict]:
    """The partial manifest's whole lines (a line a kill cut short is no entry)."""
    if not (out / JOURNAL).is_file():
        return []
    got = []
    for line in (out / JOURNAL).read_bytes().split(b"\n"):
        try:
            got.append(json.loads(line))
        except ValueError:
            continue
    return got


@pytest.fixture(scope="module")
def whole(corpus_root, tmp_path_factory):
    """The corpus exported in json and md by exports never stopped: what a resumed folder must equal."""
    base = tmp_path_factory.mktemp("whole")
    for fmt in ("json", "md"):
        asz(*_export_args(corpus_root, base / fmt, fmt))
    return corpus_root, base


#: (signal, form, where the export stops): one place each a real stop can come, each kind of signal at several.
POINTS = [
    pytest.param(signal.SIGKILL, "json", "part:4", id="kill-at-a-part-file"),
    pytest.param(signal.SIGKILL, "json", "copy:3", id="kill-between-a-copy-and-its-manifest"),
    pytest.param(signal.SIGTERM, "json", "wrote:5", id="term-before-a-partial-manifest-line"),
    pytest.param(signal.SIGINT, "md", "copy:6", id="ctrl-c-between-a-copy-and-its-manifest"),
    pytest.param(signal.SIGKILL, "md", "wrote:2", id="kill-before-a-partial-manifest-line", marks=pytest.mark.slow),
    pytest.param(signal.SIGTERM, "md", "part:9", id="term-at-a-part-file", marks=pytest.mark.slow),
    pytest.param(signal.SIGTERM, "json", "index:1", id="term-before-the-index", marks=pytest.mark.slow),
    pytest.param(signal.SIGKILL, "json", "folder:1", id="kill-before-the-folder-manifest", marks=pytest.mark.slow),
]


@pytest.mark.parametrize("sig,fmt,point", POINTS)
def test_a_stopped_folder_export_resumes_to_the_folder_a_whole_one_writes(whole, tmp_path, sig, fmt, point):
    root, base = whole
    out = tmp_path / "out"
    p = _stopped_at(root, out, fmt, point)
    os.kill(p.pid, sig)
    if sig != signal.SIGKILL:
        os.kill(p.pid, signal.SIGCONT)  # the pending SIGTERM/SIGINT is delivered as it runs on
    _, err = p.communicate(timeout=300)
    assert p.returncode == {signal.SIGKILL: -9, signal.SIGTERM: 143, signal.SIGINT: 130}[sig], err
    names = {f.name for f in out.iterdir()}
    assert "export.manifest.json" not in names  # never whole before its end
    if sig != signal.SIGKILL:
        assert err.splitlines()[-1].startswith("asz export: interrupted after ") and "the same asz export again resumes" in err
        assert not any(n.endswith(".part") for n in names)  # the file being written when it stopped: removed
    elif point.startswith("part"):
        assert any(n.endswith(".part") for n in names)  # a kill -9 leaves it; the next run removes it
    v = asz("verify", "--export", str(out), check=False)
    assert v.returncode == 2
    if JOURNAL in names:
        assert "was stopped before its end" in v.stderr
    kept = _kept(out)
    stamps = {e["file"]: ((out / e["file"]).stat().st_ino, (out / e["file"]).stat().st_mtime_ns) for e in kept}
    again = asz(*_export_args(root, out, fmt))
    said = RESUMED.search(again.stderr)
    if point.startswith("folder"):  # its partial manifest went before it stopped: every copy made again, the same bytes
        assert said is None and "0 conversation(s) changed, 11 unchanged (left as they were, byte for byte), 0 new" in again.stderr
    else:
        written, there, as_written, same = map(int, said.groups())
        assert written + there == 11 and as_written == len(kept) and there == as_written + same
        assert same == (1 if point.startswith("wrote") else 0)  # whole, its line not yet written: made again, the same
        assert stamps == {f: ((out / f).stat().st_ino, (out / f).stat().st_mtime_ns) for f in stamps}  # not written
    assert _files(out) == _files(base / fmt)  # byte for byte the folder of an export never stopped
    full = asz("verify", "--export", str(out), "--root", str(root))
    assert full.stdout.splitlines()[-1] == "the folder checks against the root"


def test_a_conversation_grown_between_the_runs_is_made_again(corpus_source, tmp_path):
    proj, root, live, lines = growing_pair(corpus_source, tmp_path)
    out = tmp_path / "out"
    p = _stopped_at(root, out, "json", "index:1")  # both copies whole and in its partial manifest
    p.kill()
    p.communicate(timeout=60)
    assert sorted(e["conversation"] for e in _kept(out)) == sorted([GROWS[1], STAYS[1]])
    live.write_bytes(b"".join(lines))
    asz("collect", "--once", "--source", str(proj), "--root", str(root))
    again = asz(*_export_args(root, out, "json"))
    assert RESUMED.search(again.stderr).groups() == ("1", "1", "1", "0"), again.stderr
    assert f"1 conversation(s) changed ({GROWS[1][:8]}: round 1 → 2, +1 landed file(s))" in again.stderr
    fresh = tmp_path / "fresh"
    asz(*_export_args(root, fresh, "json"))
    assert _files(out) == _files(fresh)
    assert json.loads((out / f"{GROWS[1]}.json").read_bytes())["head"]["round"] == 2
    v = asz("verify", "--export", str(out), "--root", str(root))
    assert v.stdout.splitlines()[-1] == "the folder checks against the root"
