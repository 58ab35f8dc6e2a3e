"""The stamp that opens a pass line (trial 31a F6: ``[HH:MM:SS]`` in each process's own zone, so the same minute read
``[06:40:57]`` on one host and ``[15:40:36]`` on its receiver): the original's form by default, and with
``ASZ_LOG_STAMP=iso`` UTC with its date, ``[2026-12-05T14:40:36Z]``, whatever ``TZ`` says. docs/cli.md, "Log stamps".

A real ``asz collect --once`` process in ``TZ=America/Los_Angeles`` over a one-line session, and ``asz push``'s §8.1
summary line (``PushReport.summary``) at a given instant."""

from __future__ import annotations

import json
import re
import time
from datetime import datetime, timezone
from zoneinfo import ZoneInfo

from collect_helpers import asz

from asz_core.export.push import PushReport

SID = "a1a1a1a1-1111-4222-8333-444455556666"


def _source(tmp_path):
    proj = tmp_path / "projects" / "-home-r-x"
    proj.mkdir(parents=True)
    line = {"sessionId": SID, "type": "user", "uuid": "u1", "parentUuid": None, "timestamp": "2026-03-01T10:00:00.000Z",
            "cwd": "/home/r/x", "version": "2.0.14", "isSidechain": False, "userType": "external",
            "message": {"role": "user", "content": "hello"}}
    (proj / f"{SID}.jsonl").write_text(json.dumps(line) + "\n")
    return tmp_path / "projects"


def _pass_line(out: str) -> str:
    (line,) = [x for x in out.splitlines() if " sessions=" in x]
    return line


def test_collect_pass_line_iso_stamp_is_utc_whatever_the_zone(tmp_path):
    src = _source(tmp_path)
    before = int(time.time())
    p = asz("collect", "--once", "--source", str(src), "--root", str(tmp_path / "iso"), child=True, fresh=True,
            extra_env={"TZ": "America/Los_Angeles", "ASZ_LOG_STAMP": "iso"})
    after = int(time.time())
    assert p.returncode == 0, p.stderr
    m = re.fullmatch(r"\[(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)\] sessions=1 .*", _pass_line(p.stdout))
    assert m, p.stdout
    at = int(datetime.strptime(m[1], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp())
    assert before - 1 <= at <= after + 1


def test_collect_pass_line_keeps_the_short_local_stamp_by_default(tmp_path):
    src = _source(tmp_path)
    before = time.time()
    p = asz("collect", "--once", "--source", str(src), "--root", str(tmp_path / "short"), child=True, fresh=True,
            extra_env={"TZ": "America/Los_Angeles", "ASZ_LOG_STAMP": ""})
    after = time.time()
    assert p.returncode == 0, p.stderr
    m = re.fullmatch(r"\[(\d\d:\d\d:\d\d)\] sessions=1 .*", _pass_line(p.stdout))
    assert m, p.stdout
    la = ZoneInfo("America/Los_Angeles")
    # the stamp is Los Angeles' wall clock at some second of the run
    said = {datetime.fromtimestamp(int(t), la).strftime("%H:%M:%S") for t in range(int(before) - 1, int(after) + 2)}
    assert m[1] in said


def test_push_summary_line_stamp(monkeypatch):
    at = datetime(2026, 12, 5, 14, 40, 36, tzinfo=timezone.utc).timestamp()
    monkeypatch.setenv("ASZ_LOG_STAMP", "iso")
    assert PushReport().summary(clock=at).startswith("[2026-12-05T14:40:36Z] files=0 ")
    monkeypatch.setenv("ASZ_LOG_STAMP", "")
    assert PushReport().summary(clock=at).startswith(time.strftime("[%H:%M:%S] files=0 ", time.localtime(at)))
