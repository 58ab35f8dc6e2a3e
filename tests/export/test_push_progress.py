"""A long ``asz push`` says where it is on stderr, as collect does (trial 46d F4: a push of 275 MB to a receiver on
loopback printed nothing for 98 s, then its one summary line).

Real input: the corpus as the real ``asz collect --once`` lands it, pushed by a real ``asz push`` child to a real
receiver in small batches (16 KiB: many requests) with ``ASZ_PROGRESS_AFTER=0`` and ``ASZ_PROGRESS_EVERY=0`` (a line
after every request, as a pass longer than 5 s has one every 10 s). The totals expected are counted here from the
root's files: every landed ``.sd`` and round ``.sf`` (the files a first push sends) and their sizes.
"""

from __future__ import annotations

import re

import pytest

from asz_core.export.push import human_bytes
from asz_core.export.receive import Receiver

from export_helpers import asz, sent_paths

LINE = re.compile(r"^push: ([\d,]+) of ([\d,]+) file\(s\), (\S+) of (\S+) sent(?:; metric points: .*)?, \d+ s$")


@pytest.mark.slow  # the corpus pushed in 16 KiB batches: 18 s at load 20
def test_a_long_push_says_where_it_is(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "data")
    paths = sent_paths(root)
    files, size = len(paths), sum((root / p).stat().st_size for p in paths)
    cfg = tmp_path / "asz.yaml"
    cfg.write_text("export:\n  otlp: {batch_bytes: 16384}\n")
    rcv = Receiver(tmp_path / "received", "127.0.0.1:0").start().serve_in_thread()
    try:
        env = {"ASZ_PROGRESS_AFTER": "0", "ASZ_PROGRESS_EVERY": "0"}
        p = asz("push", "--root", str(root), "--config", str(cfg), "--endpoint", f"http://{rcv.address}", cwd=tmp_path,
                env=env, child=True)
        assert p.returncode == 0, p.stdout + p.stderr
        lines = [m.groups() for m in map(LINE.match, p.stderr.splitlines()) if m]
        assert len(lines) > 3, p.stderr  # a line after each request: the corpus goes in many 16 KiB batches
        assert {(n, b) for _, n, _, b in lines} == {(f"{files:,}", human_bytes(size))}  # of the files due, whole
        sent = [int(d.replace(",", "")) for d, _, _, _ in lines]
        assert sent == sorted(sent) and sent[-1] == files and lines[-1][2] == human_bytes(size)
        # a short push (nothing due) in the defaults says nothing of the kind
        again = asz("push", "--root", str(root), "--config", str(cfg), "--endpoint", f"http://{rcv.address}", cwd=tmp_path,
                    env={"ASZ_PROGRESS_AFTER": "5"}, child=True)
        assert again.returncode == 0 and "push: " not in again.stderr, again.stderr
    finally:
        rcv.stop()
