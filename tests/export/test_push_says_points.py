"""After its files, ``asz push`` says the metric points it is still sending, and a long push ends with the whole wait
(trial 47d F3: ``1,074 of 1,074 file(s), 222.3MB of 222.3MB sent`` said at 98 s and again at 109 s while 14,327
metric points went; the summary's ``(108.6s)`` of a 111.5 s command).

Real parts: the corpus as the real ``asz collect --once`` lands it, a real ``asz receive`` child on loopback (port 0,
the address read from its ``receiving:`` line), a real ``asz push`` child with a progress line due after every request
(``ASZ_PROGRESS_AFTER=0``, ``ASZ_PROGRESS_EVERY=0``). The conversations looked at are counted from the root's
``_conversations`` folders; the points sent are the summary line's ``metrics=`` (the same pass's report).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest

from export_helpers import asz

POINTS = re.compile(r"^push: [\d,]+ of [\d,]+ file\(s\), \S+ of \S+ sent; metric points: (.+? sent(?: \(.*?\))?), ([\d,]+) of "
                    r"([\d,]+) conversation\(s\) looked at, \d+ s$")
#: The same line before every conversation is read (the points' total not known yet), and after (fix48b: it gave no
#: total and did not say why): ``6,020 sent (their total is known once every conversation is read)``, ``… of 14,327 sent``.
SENT = re.compile(r"^([\d,]+)(?: of ([\d,]+))? sent( \(their total is known once every conversation is read\))?$")


def _number(text: str) -> int:
    return int(text.replace(",", ""))


@pytest.mark.slow  # the corpus pushed to a child receiver: ~15 s at load 20
def test_push_says_the_points_after_the_files_and_the_whole_wait(corpus_copy, tmp_path):
    root = corpus_copy(tmp_path / "data")
    conversations = sum(1 for d in (root / "_conversations").iterdir() if d.is_dir())
    rcv = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "receive", "--listen", "127.0.0.1:0", "--root",
                            str(tmp_path / "team")], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    try:
        first = rcv.stderr.readline()
        m = re.match(r"receiving: .* on (127\.0\.0\.1:\d+) into ", first)
        assert m, first
        began = time.monotonic()
        p = asz("push", "--root", str(root), "--endpoint", f"grpc://{m.group(1)}", cwd=tmp_path,
                env={"ASZ_PROGRESS_AFTER": "0", "ASZ_PROGRESS_EVERY": "0"}, child=True)
        wall = time.monotonic() - began
    finally:
        rcv.terminate()
        rcv.wait(timeout=30)
    assert p.returncode == 0, p.stdout + p.stderr
    summary = re.search(r"files=(\d+) metrics=(\d+) .*\((\d+\.\d+)s\)$", p.stdout.strip())
    assert summary, p.stdout
    files, metrics = int(summary.group(1)), int(summary.group(2))
    assert metrics > 0, p.stdout
    lines = [m.groups() for m in map(POINTS.match, p.stderr.splitlines()) if m]
    assert lines, p.stderr  # the points are said once the files are sent
    sent = [SENT.match(x).groups() for x, _, _ in lines]
    assert all((total is None) == bool(unknown) for _, total, unknown in sent), sent  # a total, or why there is none
    # the total once known is every point the pass sends, and the last line (after the last request) says them all
    assert {_number(total) for _, total, _ in sent if total} == {metrics} and sent[-1][:2] == (f"{metrics:,}",) * 2, sent
    known = [total is not None for _, total, _ in sent]
    assert known == sorted(known) and not known[0], sent  # not known while the conversations are read, then known
    said = [(_number(x[0]), _number(n), _number(of)) for x, (_, n, of) in zip(sent, lines)]
    assert {of for _, _, of in said} == {conversations}
    assert [s for s, _, _ in said] == sorted(s for s, _, _ in said) and said[-1][0] <= metrics
    assert [n for _, n, _ in said] == sorted(n for _, n, _ in said) and said[-1][1] <= conversations
    done = [ln for ln in p.stderr.splitlines() if ln.startswith("push: done: ")]
    assert len(done) == 1 and p.stderr.splitlines()[-1] == done[0], p.stderr
    m = re.fullmatch(rf"push: done: {files:,} file\(s\) \(\S+\) and {metrics:,} metric point\(s\) sent, (\d+\.\d) s in "
                     r"all \(the pass (\d+\.\d) s, its line above\)", done[0])
    assert m, done[0]
    whole, pass_s = float(m.group(1)), float(m.group(2))
    assert pass_s <= whole <= wall + 0.1, (whole, pass_s, wall)  # from the child's start: within the wait measured
