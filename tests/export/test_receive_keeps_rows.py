"""``asz receive`` keeps the list rows behind its writes, as a collect pass does (fix50c; trial 49d F3, close49 "Not
done": a received root's first ``asz ls`` or ``asz usage`` counted every file, 13.5-16 s on 271 conversations).

Real processes: the shared corpus, collected once (tests/conftest.py ``corpus_copy``), pushed by ``asz push`` to an
``asz receive`` child on loopback. Once the push has ended and the receiver said it kept them, every conversation of
the received root has its row kept for the files it holds (``_index/summaries.sqlite``, keyed as ``asz ls`` keys it),
before any reader ran, and ``asz ls --json`` reads what the sending root's says. A receiver killed (-9) while its
child keeps rows leaves no child behind, and the next receiver keeps the rows at its start: a crash repeats work,
never loses it. The numbers are the conversation folders of the sending root, counted here."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from asz_core.config import load_config
from asz_core.reading.listing import row_cache_key
from asz_core.reading.row_cache import RowCache, fingerprint
from asz_core.view.prices import price_table
from asz_core.view.rows import read_head

from export_helpers import asz, conversations, free_port

KEPT = re.compile(r"\] rows: kept the list rows of (\d+) conversation\(s\) for asz ls and asz usage")


def _receiving(root: Path, log: Path, cwd: Path) -> tuple[subprocess.Popen, str]:
    """``asz receive`` (a fresh interpreter) into ``root``, its stderr in ``log``; the process and its address, once
    its ``receiving:`` line is written."""
    port = free_port()
    with open(log, "ab") as out:
        p = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "receive", "--root", str(root), "--listen",
                              f"127.0.0.1:{port}", "--no-token"], stderr=out, stdout=subprocess.DEVNULL, cwd=cwd)
    _said(log, lambda text: "receiving: " in text, p)
    return p, f"127.0.0.1:{port}"


def _said(log: Path, done, p: subprocess.Popen, wait: float = 120) -> str:
    """``log``'s text once ``done(text)``; fails when ``p`` ended first or ``wait`` seconds passed."""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        text = log.read_text()
        if done(text):
            return text
        assert p.poll() is None, text
        time.sleep(0.1)
    raise AssertionError(f"not said in {wait} s: {log.read_text()}")


def _stopped(p: subprocess.Popen) -> None:
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
        assert p.wait(timeout=60) == 0


def _kept(root: Path) -> list[str]:
    """The conversations of ``root`` whose row is kept for the files they hold now, as ``asz ls`` run where the
    receiver ran (no asz.yaml there: nothing withheld, the shipped prices) reads it."""
    cfg = load_config(None, cwd=root.parent)
    key = row_cache_key(list(cfg.view_hide), price_table(cfg.prices))
    rc = RowCache(root)
    try:
        out = []
        for cid in conversations(root):
            head = read_head(root, cid)
            session = ((head.header if head else None) or {}).get("session") or cid
            if rc.get(cid, key, fingerprint(root, cid, session)) is not None:
                out.append(cid)
        return out
    finally:
        rc.close()


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (exists, and is no zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = Path(f"/proc/{d}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d))
    return out


@pytest.fixture(scope="module")
def received(corpus_copy, tmp_path_factory) -> tuple[Path, Path, Path]:
    """The corpus root pushed to an ``asz receive`` child and the rows kept: (sending root, received root, its log)."""
    base = tmp_path_factory.mktemp("keeps-rows")
    sent, root, log = corpus_copy(base / "sent"), base / "received", base / "receive.log"
    p, address = _receiving(root, log, base)
    try:
        pushed = asz("push", "--root", str(sent), "--endpoint", f"grpc://{address}", cwd=base)
        assert pushed.returncode == 0, pushed.stdout + pushed.stderr
        ids = conversations(sent)
        end = time.monotonic() + 120  # each run keeps the conversations landed since the one before (fix50j)
        while _kept(root) != ids and time.monotonic() < end:
            assert p.poll() is None, log.read_text()
            time.sleep(0.2)
        _said(log, lambda text: KEPT.search(text.rsplit("] logs: ", 1)[-1]) is not None, p)  # its run said
    finally:
        _stopped(p)
    return sent, root, log


@pytest.mark.slow
def test_a_pushed_roots_rows_are_kept_before_any_reader(received, tmp_path):
    sent, root, log = received
    ids = conversations(sent)
    assert len(ids) >= 10 and conversations(root) == ids
    assert _kept(root) == ids  # each conversation's row, for its files as they are, before asz ls ran
    got = json.loads(asz("ls", "--json", "--root", str(root), cwd=tmp_path).stdout)
    want = json.loads(asz("ls", "--json", "--root", str(sent), cwd=tmp_path).stdout)
    assert [r["id"] for r in got] == [r["id"] for r in want]
    for key in ("tokens", "cost", "state", "title", "calls", "talks"):
        assert [r.get(key) for r in got] == [r.get(key) for r in want], key


@pytest.mark.slow
def test_a_receiver_killed_while_keeping_leaves_no_child_and_the_next_keeps_them(received, tmp_path):
    _, kept_root, _ = received
    root, log = tmp_path / "received", tmp_path / "receive.log"
    shutil.copytree(kept_root, root, symlinks=True)
    for p in (root / "_index").glob("summaries.sqlite*"):
        p.unlink()  # no row kept: what a receiver killed before keeping them leaves
    assert _kept(root) == []
    first, _ = _receiving(root, log, tmp_path)  # its start keeps them: killed once its child runs
    end = time.monotonic() + 60
    while not (children := _children(first.pid)) and time.monotonic() < end:
        time.sleep(0.02)
    assert children, log.read_text()
    first.kill()
    first.wait()
    end = time.monotonic() + 10
    while any(map(_alive, children)) and time.monotonic() < end:
        time.sleep(0.1)
    assert not any(map(_alive, children)), "a child outlived its receiver"
    ids = conversations(root)
    again, _ = _receiving(root, log, tmp_path)
    try:
        _said(log, lambda text: any(int(x) == len(ids) for x in KEPT.findall(text)), again)
    finally:
        _stopped(again)
    assert _kept(root) == ids


@pytest.mark.slow
def test_a_run_counts_only_the_conversations_of_the_sessions_landed_since(received, tmp_path):
    """fix50j: each run is handed the sessions whose files the requests since the run before held, not every kept row
    of the root (fix50c's runs, 6-12 a 200 MB push, each read all 270)."""
    sent, kept_root, _ = received
    ids = conversations(sent)
    root, log, part = tmp_path / "received", tmp_path / "receive.log", tmp_path / "part"
    shutil.copytree(kept_root, root, symlinks=True)  # every row kept
    shutil.copytree(sent, part, symlinks=True)  # the sending root with one session and its conversation only
    one = ids[0]
    for d in [*part.iterdir(), *(part / "_conversations").iterdir()]:
        if d.is_dir() and not d.name.startswith("_") and d.name != one:
            shutil.rmtree(d)
    (part / "push.state").unlink(missing_ok=True)
    assert conversations(part) == [one]
    p, address = _receiving(root, log, tmp_path)
    try:
        _said(log, lambda text: KEPT.search(text) is not None, p)  # its start: every conversation of the root
        pushed = asz("push", "--root", str(part), "--endpoint", f"grpc://{address}", cwd=tmp_path)
        assert pushed.returncode == 0, pushed.stdout + pushed.stderr
        text = _said(log, lambda text: len(KEPT.findall(text)) >= 2, p)
    finally:
        _stopped(p)
    assert [int(x) for x in KEPT.findall(text)] == [len(ids), 1], text
    assert _kept(root) == ids
