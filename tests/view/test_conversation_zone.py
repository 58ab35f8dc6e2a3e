"""``asz conversation`` writes a talk's start in the reader's zone, as ``asz ls``, ``usage`` and ``export`` do (trial
31c F4: ``stream main from 2026-02-10 21:11 UTC`` whatever ``TZ=`` said): ``TZ=`` (this machine's zone) or ``--tz``,
the zone named after the time, and in the hour a clock set back repeats the time's offset too.

Real input: the corpus's fe869ecb (two prompts, 2025-06-14 23:42 and 23:52 UTC in its lines), and a 9-line corpus
transcript whose ``timestamp`` fields alone are moved into Pacific/Chatham's repeated hour (2026-04-05: 03:45 +13:45
became 02:45 +12:45 at 2026-04-04 14:00Z). Expected times are made here from the lines' UTC stamps by the standard library's
zoneinfo and fold, never by asz's code."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import sys
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

import forked
from cli_helpers import asz_in_process

HELLO = "-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
CHATHAM = ZoneInfo("Pacific/Chatham")
_STAMP = re.compile(r'"timestamp":"[^"]+"')


def _prompts(path: Path) -> dict[str, dt.datetime]:
    """The typed prompts of a transcript (their first 30 characters) and their UTC times, from its lines."""
    out = {}
    for raw in path.read_bytes().splitlines():
        d = json.loads(raw)
        content = (d.get("message") or {}).get("content")
        if d.get("type") == "user" and isinstance(content, str) and not d.get("isMeta") and not content.startswith("<"):
            out[content[:30]] = dt.datetime.fromisoformat(d["timestamp"].replace("Z", "+00:00"))
    return out


def _talk_lines(out: str) -> list[str]:
    lines = out.splitlines()
    at = lines.index(next(x for x in lines if x.startswith("costliest talks: ")))
    return [x for x in lines[at + 1:] if x.startswith("  $")]


def test_talk_times_follow_tz_in_kathmandu(corpus):
    corpus_source, corpus_root = corpus
    prompts = _prompts(next(corpus_source.rglob("fe869ecb-*.jsonl")))
    assert len(prompts) == 2
    args = ("conversation", "fe869ecb", "--root", str(corpus_root))
    # the machine's zone, TZ=: a process of its own, so the C library reads it
    by_env = forked.run([sys.executable, "-m", "asz_core.cli.main", *args], capture_output=True, text=True,
                        timeout=120, env={**os.environ, "TZ": "Asia/Kathmandu"})
    by_option = asz_in_process(*args, "--tz", "Asia/Kathmandu")
    for p in (by_env, by_option):
        assert p.returncode == 0, p.stderr
        talks = _talk_lines(p.stdout)
        assert len(talks) == 2
        for line in talks:
            label = line.split(" Asia/Kathmandu: ", 1)[1]
            (at,) = [t for k, t in prompts.items() if label.startswith(k)]
            local = at.astimezone(ZoneInfo("Asia/Kathmandu"))  # +05:45: 23:52Z is 05:37 the next day
            assert f"stream main from {local:%Y-%m-%d %H:%M} Asia/Kathmandu: " in line, (line, at)
        assert " UTC: " not in p.stdout
    assert any("2025-06-15 05:37 Asia/Kathmandu" in x for x in _talk_lines(by_option.stdout))
    utc = asz_in_process(*args, "--tz", "UTC")
    assert {f"stream main from {t:%Y-%m-%d %H:%M} UTC: " for t in prompts.values()} == \
        {re.search(r"stream main from .* UTC: ", x).group(0) for x in _talk_lines(utc.stdout)}
    bad = asz_in_process(*args, "--tz", "Mars/Base")
    assert bad.returncode == 2 and "asz conversation: --tz: 'Mars/Base' is not a time zone name" in bad.stderr


@pytest.fixture(scope="module")
def repeated_hour(corpus_dir: Path, tmp_path_factory) -> tuple[Path, dt.datetime]:
    """A root holding the hello transcript moved to start at 14:10Z on 2026-04-04 (Chatham's second 02:55 of 2026-04-05), and that
    start as the lines give it."""
    source = corpus_dir / "claude-code/projects" / HELLO
    base = tmp_path_factory.mktemp("chatham")
    src = base / "projects" / HELLO
    src.parent.mkdir(parents=True)
    start = dt.datetime(2026, 4, 4, 14, 10, tzinfo=dt.timezone.utc)
    lines = [_STAMP.sub(f'"timestamp":"{(start + dt.timedelta(seconds=10 * i)).strftime("%Y-%m-%dT%H:%M:%S.000Z")}"', x, count=1)
             for i, x in enumerate(source.read_text(encoding="utf-8").splitlines())]
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    p = asz_in_process("collect", "--once", "--source", str(base / "projects"), "--root", str(base / "root"))
    assert p.returncode == 0, p.stderr
    (at,) = _prompts(src).values()
    return base / "root", at


def test_a_talk_in_the_repeated_hour_carries_its_offset_in_chatham(repeated_hour):
    root, at = repeated_hour
    local = at.astimezone(CHATHAM)
    assert local.replace(fold=1 - local.fold).utcoffset() != local.utcoffset()  # the wall time is shown twice
    off = int(local.utcoffset().total_seconds()) // 60
    assert off == 12 * 60 + 45
    want = f"stream main from {local:%Y-%m-%d %H:%M}+{off // 60:02d}:{off % 60:02d} Pacific/Chatham: "
    p = asz_in_process("conversation", "de3b8b19", "--root", str(root), "--tz", "Pacific/Chatham")
    assert p.returncode == 0, p.stderr
    (talk,) = _talk_lines(p.stdout)
    assert want in talk and want.startswith("stream main from 2026-04-05 02:"), (talk, want)
