"""Every time a reader prints names its zone once (trial 12: ``asz export`` wrote ``from 2026-04-18 13:10:51`` in
the exporter's zone with no label, so a shared file was ambiguous; ``ls``, ``search`` and ``usage`` named none).
The times are checked against the source transcript's own ``timestamp`` fields, written in the zone by the standard
library; ``--json`` keeps its values (unix ms in ``ls``, an ISO date in ``usage``) whatever the zone."""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from zoneinfo import ZoneInfo

from cli_helpers import asz_in_process

SID = "fe869ecb-c176-478f-9734-7e4b8ef12cff"
SOURCE = f"-Users-alex-workspace-claude-code-log-sample/{SID}.jsonl"
FMT = "%Y-%m-%d %H:%M:%S"


def _span(corpus_source, zone: str) -> tuple[str, str]:
    stamps = [json.loads(ln).get("timestamp") for ln in (corpus_source / SOURCE).read_text().splitlines() if ln.strip()]
    ts = [dt.datetime.fromisoformat(t.replace("Z", "+00:00")).astimezone(ZoneInfo(zone)) for t in stamps if t]
    return min(ts).strftime(FMT), max(ts).strftime(FMT)


def test_an_export_names_the_zone_of_its_times(corpus_root, corpus_source, tmp_path):
    a, b = _span(corpus_source, "Asia/Tokyo")
    md = asz_in_process("export", SID[:8], "--format", "md", "--tz", "Asia/Tokyo", "--root", str(corpus_root))
    assert md.returncode == 0, md.stderr
    assert f"\n- from {a} to {b} (times in Asia/Tokyo), 3 talks, state verified\n" in md.stdout
    html = asz_in_process("export", SID[:8], "--format", "html", "--tz", "UTC", "--root", str(corpus_root)).stdout
    a, b = _span(corpus_source, "UTC")
    assert f" · from {a} to {b} (times in UTC) · 3 talks" in html
    out = tmp_path / "all"
    p = asz_in_process("export", "--project", "claude-code-log", "--format", "md", "--tz", "Europe/Paris", "--out", str(out),
                       "--root", str(corpus_root))
    assert p.returncode == 0, p.stderr
    assert "# Conversations\n\nLast activity in Europe/Paris.\n" in (out / "index.md").read_text(encoding="utf-8")
    out = tmp_path / "all-html"  # its own folder: md's copies beside it would be another export's (trial 37a F3)
    asz_in_process("export", "--project", "claude-code-log", "--format", "html", "--tz", "Europe/Paris", "--out", str(out),
                   "--root", str(corpus_root))
    assert "<p class=\"meta\">Last activity in Europe/Paris.</p>" in (out / "index.html").read_text(encoding="utf-8")


def test_terminal_tables_name_the_zone(corpus_root):
    ls = asz_in_process("ls", "--tz", "Asia/Tokyo", "--root", str(corpus_root)).stdout.splitlines()
    assert ls[-2:] == ["LAST ACTIVITY in Asia/Tokyo", "11 of 11 conversations"]
    usage = asz_in_process("usage", "--tz", "America/New_York", "--root", str(corpus_root)).stdout.splitlines()
    assert usage[0].startswith("DATE (America/New_York)  MODELS")
    month = asz_in_process("usage", "monthly", "--tz", "utc", "--root", str(corpus_root)).stdout.splitlines()
    assert month[0].startswith("MONTH (UTC)  MODELS")
    assert asz_in_process("usage", "project", "--root", str(corpus_root)).stdout.startswith("PROJECT  ")  # no time, no zone
    hits = asz_in_process("search", "worktree", "--limit", "1", "--tz", "Asia/Tokyo", "--root", str(corpus_root)).stdout
    assert hits.splitlines()[-2] == "times in Asia/Tokyo"


def test_json_values_do_not_move_with_the_zone(corpus_root):
    rows = [json.loads(asz_in_process("ls", "--json", "--tz", z, "--root", str(corpus_root)).stdout) for z in ("UTC", "Asia/Tokyo")]
    assert rows[0] == rows[1] and all(isinstance(r["to"], int) for r in rows[0])  # unix ms, no zone in them


def test_without_tz_the_machines_zone_is_named(corpus_root, corpus_source):
    env = {**os.environ, "TZ": "Asia/Kolkata"}
    p = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "ls", "--root", str(corpus_root)], capture_output=True,
                       text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    row = next(ln for ln in p.stdout.splitlines() if ln.startswith(SID[:8]))
    assert _span(corpus_source, "Asia/Kolkata")[1][:16] in row
    assert "LAST ACTIVITY in Asia/Kolkata" in p.stdout.splitlines()
